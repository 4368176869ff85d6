// The client and `alms`: `npm run bench -- --only client`. The client's size
// as it ships (its source with the types stripped, raw and gzipped; schema.ts
// is types only and ships nothing), and `alms balance` end to end against a
// local server (process start, the request, the output): the median of 15
// runs, beside a bare `node -e 0` measured in the same run. Goal: <= 300 ms.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { buildClient } from '../scripts/client-build.ts';
import { gzipSync } from 'node:zlib';
import pino from 'pino';
import { loadConfig } from '../src/config.ts';
import { openPlatform } from '../src/platform.ts';
import { createUserWithKey } from '../src/modules/users/index.ts';
import { freshDatabase, startServer } from './processes.ts';

const ALMS = new URL('../packages/client/bin/alms.js', import.meta.url).pathname;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function timed(args: string[], env: NodeJS.ProcessEnv): number {
  const started = performance.now();
  execFileSync(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
  return performance.now() - started;
}

export async function benchClient(log: (line: string) => void): Promise<string[]> {
  log('\n== client and alms');
  buildClient();
  const source = readFileSync(new URL('../packages/client/dist/index.js', import.meta.url), 'utf8');
  const raw = Buffer.byteLength(source);
  const gzipped = gzipSync(source).length;
  const { databaseUrl, cleanup } = await freshDatabase('sqlite', 'client');
  try {
    const platform = await openPlatform(loadConfig({}, { databaseUrl }), { log: pino({ level: 'warn' }) });
    const made = await createUserWithKey(platform.deps, { name: 'Bench Donor' }, { name: 'bench', mode: 'live' }, 'bench');
    await platform.close();
    const server = await startServer('app', { DATABASE_URL: databaseUrl, RATE_LIMIT_PER_MINUTE: '1000000' });
    try {
      const env = { ...process.env, ALMONER_URL: `http://127.0.0.1:${server.port}`, ALMONER_API_KEY: made.key.key, NO_COLOR: '1' };
      timed([ALMS, 'balance'], env); // warms the compile cache, as any second run has it
      const alms = median(Array.from({ length: 15 }, () => timed([ALMS, 'balance'], env)));
      const bare = median(Array.from({ length: 15 }, () => timed(['-e', '0'], env)));
      log(`  client: ${raw} B as it ships, ${gzipped} B gzipped; alms balance: median ${alms.toFixed(0)} ms end to end (bare node -e 0: ${bare.toFixed(0)} ms)`);
      return [
        '| what | figure | baseline in the same run |',
        '|---|---|---|',
        `| the client, as it ships | ${raw.toLocaleString('en-US')} B, **${gzipped.toLocaleString('en-US')} B gzipped** | |`,
        `| \`alms balance\`, end to end, median of 15 | **${alms.toFixed(0)} ms** | \`node -e 0\`: ${bare.toFixed(0)} ms |`,
        '',
      ];
    } finally {
      server.child.kill('SIGTERM');
    }
  } finally {
    await cleanup();
  }
}
