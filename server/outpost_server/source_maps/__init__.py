"""Source maps: uploads with sentry-cli (chunks, artifact bundles, releases and release files) and
symbolication of JavaScript frames in the digest stage."""
