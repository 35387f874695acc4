// A job watched by @sentry/node's withMonitor: `node node_job.js DSN` (run in node_latest/).
const Sentry = require("@sentry/node");

Sentry.init({ dsn: process.argv[2], environment: "production" });

async function main() {
  await Sentry.withMonitor(
    "queue-drain",
    async () => new Promise((resolve) => setTimeout(resolve, 100)),
    { schedule: { type: "interval", value: 15, unit: "minute" }, checkinMargin: 2, maxRuntime: 5 },
  );
  await Sentry.flush(10000);
  console.log("done", Sentry.SDK_VERSION);
}

main();
