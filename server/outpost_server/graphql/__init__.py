"""GitLab's GraphQL API (`/api/graphql`) for the part of GitLab's schema Outpost serves.

Schema first: `schema.graphql` is a verbatim subset of GitLab's SDL, bound to resolvers with Ariadne
on graphql-core. `router` is the HTTP endpoint (GitLab's authentication, bodies and status codes),
`limits` caps depth and complexity as GitLab does, and one module per domain holds its resolvers.
"""
