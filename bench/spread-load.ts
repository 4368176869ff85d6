// The load of many donors giving at once: autocannon's POSTs, each with the
// key of a donor picked at random among many (autocannon's command line sends
// one key), and with `idempotent` a fresh Idempotency-Key on each, as the typed client and `alms`
// send (time-ordered: @almoner/client's idempotencyKey), or with `idempotent-random` a random UUID
// on each, as a client of its own may send.
// Prints autocannon's JSON result, as `autocannon -j` does.
// Usage: node bench/spread-load.ts URL DURATION_S CONNECTIONS KEYS_FILE BODY [idempotent|idempotent-random]
import { randomUUID } from 'node:crypto';
import { idempotencyKey } from '@almoner/client';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

const [url, duration, connections, keysFile, body, mode] = process.argv.slice(2) as [string, string, string, string, string, string?];
const newKey = mode === 'idempotent' ? () => idempotencyKey() : mode === 'idempotent-random' ? () => randomUUID() : undefined;
const keys = JSON.parse(readFileSync(keysFile, 'utf8')) as string[];
const result = await autocannon({
  url,
  duration: Number(duration),
  connections: Number(connections),
  requests: [
    {
      method: 'POST',
      body,
      setupRequest: (request) => ({
        ...request,
        headers: {
          ...request.headers,
          'content-type': 'application/json',
          'x-api-key': keys[Math.floor(Math.random() * keys.length)] as string,
          ...(newKey === undefined ? {} : { 'idempotency-key': newKey() }),
        },
      }),
    },
  ],
});
process.stdout.write(JSON.stringify(result));
