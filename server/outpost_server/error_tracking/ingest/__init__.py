"""The accept stage: the collector's endpoints, who may send (DSNs, keys, origins, the access cache), the
rate limit, the wire protocol's accept-time checks, and the spool every accepted request is appended to.
Nothing here decodes an event into what is stored: that is the digest's, which this stage never imports."""
