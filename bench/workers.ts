// `npm run bench -- --only workers`: throughput of `almoner serve --workers N`
// with 1 and 2 workers, on each engine, measured in the same run and reported
// as ratios. The load generator is not pinned: with 2 workers the servers
// need both cores, so it shares them, as it would on a real two-core host
// behind a local proxy. The figures say how much a second worker adds here.
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './processes.ts';

export interface Load {
  rps: number;
  p99: number;
  non2xx: number;
}

type Autocannon = (url: string, options: { method?: string; body?: string; key?: string; duration?: number }) => Promise<Load>;

const BIN = new URL('../bin/almoner.js', import.meta.url).pathname;

async function startWorkers(databaseUrl: string, workers: number): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve', '--workers', String(workers)], {
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '1000000', SCHEDULER_INTERVAL_MS: '0', SANDBOX_TICK_MS: '0' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    const ready = await fetch(`${base}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, base };
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Rows of the results table: GET list and POST donations with 1 and 2 workers, and the ratios. */
export async function benchWorkers(
  engine: string,
  databaseUrl: string,
  seeded: { key: string; ein: string },
  autocannon: Autocannon,
  log: (line: string) => void,
): Promise<string[]> {
  const results = new Map<string, Load>();
  for (const workers of [1, 2]) {
    const { child, base } = await startWorkers(databaseUrl, workers);
    try {
      const probe = await fetch(`${base}/v1/donations?per_page=1`, { headers: { 'x-api-key': seeded.key } });
      if (probe.status !== 200) throw new Error(`the server on ${databaseUrl} answered ${probe.status} for ${seeded.key}: ${await probe.text()}`);
      for (const [name, path, options] of [
        ['GET /v1/donations', '/v1/donations?page=1&per_page=25', { key: seeded.key }],
        ['POST /v1/donations', '/v1/donations', { key: seeded.key, method: 'POST', body: JSON.stringify({ amount: 10, ein: seeded.ein }) }],
      ] as const) {
        await autocannon(`${base}${path}`, { ...options, duration: 3 }); // warm-up
        const r = await autocannon(`${base}${path}`, options);
        results.set(`${name} ${workers}`, r);
        log(
          `  ${`${name}, ${workers} worker${workers > 1 ? 's' : ''}`.padEnd(44)} ${r.rps.toFixed(0).padStart(7)} req/s  p99 ${String(r.p99).padStart(4)} ms${r.non2xx > 0 ? `  (${r.non2xx} non-2xx)` : ''}`,
        );
      }
    } finally {
      await stop(child);
    }
  }
  return ['GET /v1/donations', 'POST /v1/donations'].map((name) => {
    const one = results.get(`${name} 1`)!;
    const two = results.get(`${name} 2`)!;
    return `| ${engine} | ${name}: 1 -> 2 workers | ${one.rps.toFixed(0)} -> ${two.rps.toFixed(0)} | ${one.p99} -> ${two.p99} | 1 worker | **${(two.rps / one.rps).toFixed(2)}x** |`;
  });
}
