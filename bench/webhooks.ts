// Webhooks at size: `npm run bench -- --only webhooks`. On each engine:
//   backlog: 10,000 donations' events waiting, then `almoner webhooks deliver`
//     started and timed until a local receiver has every one (events/s; the
//     relay renders each, the worker signs and POSTs each);
//   lag: `almoner serve` with its default NOTIFY_INTERVAL_MS while donations
//     are created at 200/s for 10 s; the lag of each is the receiver's clock
//     at arrival minus the event's commit time (its payload's timestamp).
// Goals (issue 18): backlog >= 1,000 events/s on SQLite; lag p99 <= 1 s.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { loadConfig } from '../src/config.ts';
import { openPlatform } from '../src/platform.ts';
import { buildApp } from '../src/app.ts';
import { createUserWithKey } from '../src/modules/users/index.ts';
import { loadDemoNonProfits } from '../src/demo/seed.ts';
import { freshDatabase } from './processes.ts';
import { fundByWire } from './seed.ts';

const BIN = new URL('../bin/almoner.js', import.meta.url).pathname;
const BACKLOG = Number(process.env.BENCH_WEBHOOK_BACKLOG ?? 10_000);

function receiver(onEvent: (id: string, payload: string, at: number) => void): Promise<{ port: number; close: () => void }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      onEvent(String(req.headers['webhook-id']), body, Date.now());
      res.writeHead(204).end();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ port: (server.address() as AddressInfo).port, close: () => server.close() })));
}

/** A donor with a key, money and an endpoint at `url`; the platform stays open for the caller to use. */
async function donorWithEndpoint(databaseUrl: string, url: string) {
  const platform = await openPlatform(loadConfig({}, { databaseUrl, webhookAllowPrivate: true, rateLimitPerMinute: 100_000_000 }), { log: pino({ level: 'warn' }) });
  const { deps } = platform;
  const { eligible } = await loadDemoNonProfits(deps);
  const made = await createUserWithKey(deps, { name: 'Webhook Bench' }, { name: 'bench', mode: 'live' }, 'bench');
  await fundByWire(deps, made, '10000000');
  const app = await buildApp(deps);
  const headers = { 'x-api-key': made.key.key, 'content-type': 'application/json' };
  const endpoint = await app.inject({ method: 'POST', url: '/v1/webhook_endpoints', headers, payload: JSON.stringify({ url, event_types: ['donation.created'] }) });
  if (endpoint.statusCode !== 201) throw new Error(`endpoint: ${endpoint.body}`);
  return { platform, app, headers, ein: eligible[0] as string, key: made.key.key };
}

const exited = (child: ChildProcess) => new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve)));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function backlogRun(engine: string, log: (line: string) => void): Promise<string> {
  const { databaseUrl, cleanup } = await freshDatabase(engine, 'hooks');
  const got = new Set<string>();
  let done: () => void = () => {};
  const all = new Promise<void>((resolve) => {
    done = resolve;
  });
  const rx = await receiver((id) => {
    got.add(id);
    if (got.size >= BACKLOG) done();
  });
  try {
    const { platform, app, headers, ein } = await donorWithEndpoint(databaseUrl, `http://127.0.0.1:${rx.port}/hook`);
    log(`  seeding ${BACKLOG.toLocaleString('en-US')} donations (events waiting)`);
    for (let i = 0; i < BACKLOG; i++) {
      const r = await app.inject({ method: 'POST', url: '/v1/donations', headers, payload: JSON.stringify({ ein, amount: 10 }) });
      if (r.statusCode !== 201) throw new Error(r.body);
    }
    await app.close();
    await platform.close();
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, 'webhooks', 'deliver'], {
      env: { ...process.env, DATABASE_URL: databaseUrl, WEBHOOK_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    });
    await all;
    const seconds = (performance.now() - started) / 1000;
    child.kill('SIGTERM');
    await exited(child);
    const rate = BACKLOG / seconds;
    log(`  backlog: ${BACKLOG.toLocaleString('en-US')} events delivered in ${seconds.toFixed(2)} s: ${rate.toFixed(0)} events/s (process start included)`);
    return `| ${engine} | backlog of ${BACKLOG.toLocaleString('en-US')} events | ${seconds.toFixed(2)} s | **${rate.toFixed(0)} events/s** | |`;
  } finally {
    rx.close();
    await cleanup();
  }
}

async function lagRun(engine: string, log: (line: string) => void): Promise<string> {
  const { databaseUrl, cleanup } = await freshDatabase(engine, 'lag');
  const lags: number[] = [];
  const rx = await receiver((_id, payload, at) => {
    lags.push(at - Date.parse((JSON.parse(payload) as { timestamp: string }).timestamp));
  });
  try {
    const { platform, ein, key } = await donorWithEndpoint(databaseUrl, `http://127.0.0.1:${rx.port}/hook`);
    await platform.close();
    const server = spawn('taskset', ['-c', '0', process.execPath, BIN, 'serve'], {
      env: { ...process.env, DATABASE_URL: databaseUrl, PORT: '0', WEBHOOK_ALLOW_PRIVATE: 'true', RATE_LIMIT_PER_MINUTE: '1000000', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const base = await new Promise<string>((resolve) => {
      let out = '';
      server.stdout?.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m) resolve(m[1] as string);
      });
    });
    const rate = 200;
    const seconds = 10;
    let sent = 0;
    const body = JSON.stringify({ ein, amount: 10 });
    await new Promise<void>((resolve) => {
      const started = performance.now();
      const tick = setInterval(() => {
        const due = Math.floor(((performance.now() - started) / 1000) * rate);
        while (sent < Math.min(due, rate * seconds)) {
          sent++;
          void fetch(`${base}/v1/donations`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body }).then((r) => r.text());
        }
        if (sent >= rate * seconds) {
          clearInterval(tick);
          resolve();
        }
      }, 5);
    });
    for (let i = 0; i < 100 && lags.length < sent; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    server.kill('SIGTERM');
    await exited(server);
    const sorted = [...lags].sort((a, b) => a - b);
    const [p50, p99] = [percentile(sorted, 50), percentile(sorted, 99)];
    log(
      `  lag at ${rate} donations/s for ${seconds} s: ${lags.length}/${sent} delivered, p50 ${p50} ms, p99 ${p99} ms, max ${sorted.at(-1)} ms (NOTIFY_INTERVAL_MS 250, the default)`,
    );
    return `| ${engine} | lag, ${rate} donations/s for ${seconds} s | ${lags.length}/${sent} delivered | p50 ${p50} ms | **p99 ${p99} ms** |`;
  } finally {
    rx.close();
    await cleanup();
  }
}

export async function benchWebhooks(engines: string[], log: (line: string) => void): Promise<string[]> {
  const rows: string[] = [];
  for (const engine of engines) {
    log(`\n== webhooks (${engine})`);
    rows.push(await backlogRun(engine, log));
    rows.push(await lagRun(engine, log));
  }
  return ['| engine | webhooks | result | | |', '|---|---|---|---|---|', ...rows, ''];
}
