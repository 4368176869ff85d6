// The load of many donors giving at once: autocannon's POSTs, each with the
// key of a donor picked at random among many (autocannon's command line sends
// one key), and with `idempotent` a fresh Idempotency-Key on each, as a careful client sends.
// Prints autocannon's JSON result, as `autocannon -j` does.
// Usage: node bench/spread-load.ts URL DURATION_S CONNECTIONS KEYS_FILE BODY [idempotent]
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

const [url, duration, connections, keysFile, body, mode] = process.argv.slice(2) as [string, string, string, string, string, string?];
const idempotent = mode === 'idempotent';
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
          ...(idempotent ? { 'idempotency-key': randomUUID() } : {}),
        },
      }),
    },
  ],
});
process.stdout.write(JSON.stringify(result));
