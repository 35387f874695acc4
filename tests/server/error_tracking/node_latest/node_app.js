// The newest @sentry/node reporting to Outpost: `node node_app.js DSN`.
// A TypeError thrown in chargeCard is captured, then a message at warning level.
const Sentry = require("@sentry/node");

Sentry.init({ dsn: process.argv[2], release: "shop-node@11.0.0", environment: "production" });

function chargeCard(amount) {
  throw new TypeError(`card declined for ${amount}`);
}

async function main() {
  try {
    chargeCard(42);
  } catch (error) {
    Sentry.captureException(error);
  }
  Sentry.captureMessage("queue backlog", "warning");
  if (!(await Sentry.flush(10000))) {
    throw new Error("events not sent in time");
  }
}

main();
