// @sentry/deno reporting to Outpost: `deno run --allow-all deno_app.ts DSN`.
// A TypeError thrown in chargeCard is captured, then a message at warning level.
import * as Sentry from "@sentry/deno";

Sentry.init({ dsn: Deno.args[0], release: "shop-deno@1.0.0", environment: "production" });

function chargeCard(amount: number): never {
  throw new TypeError(`card declined for ${amount}`);
}

try {
  chargeCard(42);
} catch (error) {
  Sentry.captureException(error);
}
Sentry.captureMessage("queue backlog", "warning");
if (!(await Sentry.flush(10000))) {
  throw new Error("events not sent in time");
}
