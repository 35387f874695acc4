// A small app reporting to Outpost with the legacy raven-node client: `node raven_node.js DSN`.
const Raven = require('raven');

Raven.config(process.argv[2], { release: 'shop@2.0.0', environment: 'staging' });
Raven.setContext({ user: { id: 'u-4' } });

function level3(order) {
  return order.amount.toFixed(2);
}

try {
  level3({});
} catch (error) {
  Raven.captureException(error, (sendError) => {
    if (sendError) {
      console.error(sendError);
      process.exit(2);
    }
    Raven.captureMessage('Something happened: order 42 failed', { level: 'warning' }, (messageError) => {
      process.exit(messageError ? 2 : 0);
    });
  });
}
