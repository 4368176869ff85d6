// A load client for search: `concurrency` loops cycling through a list of
// paths for `duration_s`, reporting requests/s and latency percentiles.
//   node bench/search-client.ts BASE_URL KEY PATHS_JSON_FILE CONCURRENCY DURATION_S
import { readFileSync } from 'node:fs';

const [base, key, pathsFile, concurrency, duration] = process.argv.slice(2);
const paths = JSON.parse(readFileSync(pathsFile as string, 'utf8')) as string[];
const latencies: number[] = [];
let errors = 0;
let next = 0;
const until = Date.now() + Number(duration) * 1000;
async function loop(): Promise<void> {
  while (Date.now() < until) {
    const path = paths[next++ % paths.length] as string;
    const started = performance.now();
    const res = await fetch(`${base}${path}`, { headers: { 'x-api-key': key as string } });
    await res.arrayBuffer();
    latencies.push(performance.now() - started);
    if (res.status !== 200) errors += 1;
  }
}
const started = Date.now();
await Promise.all(Array.from({ length: Number(concurrency) }, loop));
const seconds = (Date.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const pct = (p: number) => Number((latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0).toFixed(2));
process.stdout.write(JSON.stringify({ requests: latencies.length, rps: Math.round(latencies.length / seconds), p50: pct(0.5), p95: pct(0.95), p99: pct(0.99), errors }));
