// Way 4, full control with modelworks/client: read, write with an expected revision, react to a
// refusal, and follow the model's changes (the subscription reconnects and resumes by itself).
//   node examples/embed/client.mjs [http://127.0.0.1:8080]
// In a browser the same code runs without the `ws` import (browsers have WebSocket).
import WebSocket from 'ws';
import { ModelworksClient, VersionConflictError, ViolationError } from 'modelworks/client';

const client = new ModelworksClient({
  baseUrl: process.argv[2] ?? 'http://127.0.0.1:8080',
  apiKey: process.env.MODELWORKS_API_KEY,
  WebSocket, // Node 20 has no WebSocket of its own
});
const id = 'car-loan-calculator';

const subscription = client.subscribe(id, {
  onEvent: (event) =>
    console.log('event:', event.kind, event.kind === 'mutation' ? event.derivedUpdated : ''),
});
await subscription.ready;

const { state, revision } = await client.readState(id);
console.log(`payment ${state.monthlyPayment} at revision ${revision}`);
const written = await client.mutate(id, { '$.deposit': 6000 }, { expectedRevision: revision });
console.log(
  `wrote revision ${written.revision}; payment now ${await client.getField(id, '$.monthlyPayment')}`,
);

try {
  await client.mutate(id, { '$.deposit': 1 }, { expectedRevision: revision }); // stale on purpose
} catch (err) {
  if (err instanceof VersionConflictError)
    console.log(`refused: expected ${err.expected}, actual ${err.actual}`);
  else throw err;
}
try {
  await client.mutate(id, { '$.deposit': 999999 });
} catch (err) {
  if (err instanceof ViolationError) console.log('refused:', err.violations.map((v) => v.message).join('; '));
  else throw err;
}
setTimeout(() => subscription.close(), 500);
