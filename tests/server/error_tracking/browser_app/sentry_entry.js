// Bundled (with deno bundle) into the single script the test page loads, as a site would ship it.
import * as Sentry from "@sentry/browser";

window.Sentry = Sentry;
