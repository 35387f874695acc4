// A small app reporting to Outpost with the real @sentry/node: `node sentry_node.js MODE DSN`.
// MODE is "handled" (an exception and a message) or "crash" (an uncaught exception).
const Sentry = require('@sentry/node');

const [mode, dsn] = process.argv.slice(2);
Sentry.init({ dsn, release: 'shop@2.0.0', environment: 'staging' });
Sentry.setUser({ id: 'u-3' });

function level3(order) {
  return order.amount.toFixed(2);
}

function run() {
  try {
    level3({});
  } catch (error) {
    Sentry.captureException(error);
  }
  Sentry.captureMessage('Something happened: order 42 failed', 'warning');
}

run();
if (mode === 'crash') {
  setTimeout(function parseConfig() {
    JSON.parse('{bad json');
  }, 200);
} else {
  Sentry.close(10000).then(() => process.exit(0));
}
