// `npm run bench`: Almoner against baselines measured in the same run.
//   GET /v1/donations (a user with 100k donations among 1M, page 1, 25 per page)
//     vs a bare node:http server answering a pre-serialized body of the same size
//   GET /v1/non_profits/:ein vs the same ceiling
//   POST /v1/donations (durable, with its journal) vs a naive durable single-row insert,
//     from one fund and spread over 100 funds (bench/spread-load.ts: a random donor's key each);
//     each run over 100 funds also prints its rounds from the server's /metrics (requests a round,
//     time a round; on SQLite transactions a commit and syncs)
//   and the GET list's latency at a fixed 2,000 requests/s, evenly spaced (bench/open-loop.ts),
//     beside the ceiling's at the same rate (the load client's own delay).
// Servers run on core 0, the load generator (autocannon) on core 1.
// Then `almoner serve --workers 1` and `2` on each engine (bench/workers.ts), and the
// national directory (bench/directory.ts).
// CSV exports of 100,000 rows with the server's memory (bench/exports.ts), and webhooks: a
// backlog of 10,000 events and the delivery lag at 200 donations/s (bench/webhooks.ts), and the
// client's size and `alms balance` end to end (bench/client.ts).
// Options: --engines sqlite,postgres  --duration 10  --users 10 --per-user 100000  --only api|post|ledger|chains|keyed|get|workers|directory|exports|webhooks|client|payments|valuation|sequencer
//   --repeat N (with --only post): the naive insert, one fund and many funds (with and without Idempotency-Keys) measured N times in turn,
//   each ratio against the naive insert of the same turn, and their medians
//   --only get: the list three times, each beside its own ceiling and then at a fixed 2,000 req/s
//     with the CPU the server and the whole machine used meanwhile
//   BENCH_NODE_FLAGS="...": Node's flags for the app server; BENCH_CPU_PROF=DIR: its CPU profile;
//     BENCH_PERF=DIR: the whole machine's, by `perf record`, over each measured window (bench/perf-record.ts);
//     BENCH_SERVER_OUT=FILE: the app server's standard output appended there (`--trace-gc`'s, say);
//     BENCH_STALL_MS=N: the app server says when its event loop was held more than N ms (bench/servers.ts);
//     OPEN_LOOP_TRACE=FILE: each open-loop request's due time and latency (bench/open-loop.ts);
//     BENCH_HEAP_SAMPLE=FILE (BENCH_HEAP_SAMPLE_KEEP=promoted): the app server's sampled allocations;
//     BENCH_PRETENURING=on: the app server with V8's default pretenuring (src/heap.ts)
//   BENCH_PG_ICU=1: PostgreSQL's databases made with ICU's en-US collation (bench/processes.ts, ADR 36)
//   --only ledger --repeat N: N pairs, alternated, of the load over 100 funds without and with the ledger's log job, and the median of their ratios
//   --only chains --repeat N: the same pairs, the ledger's chains off (bench/chains-off.ts) against on with the job: issue 61's measure
//   --only keyed --repeat N: issue 60's keyed measure: N triples on one server, without keys, with the typed client's
//     Idempotency-Keys and with random UUIDs, alternated (keyedTriples)
//   --only sequencer: the ledger's sequencer alone, the time an entry on a backlog (bench/sequencer.ts)
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { seedBench } from './seed.ts';
import { benchDirectory } from './directory.ts';
import { benchWorkers } from './workers.ts';
import { benchExports } from './exports.ts';
import { benchWebhooks } from './webhooks.ts';
import { benchClient } from './client.ts';
import { benchPayments } from './payments.ts';
import { benchValuation } from './valuation.ts';
import { benchSequencer } from './sequencer.ts';
import { median } from './stats.ts';
import { perfRecord } from './perf-record.ts';
import { freshDatabase, snapshotOf, startServer, withClient } from './processes.ts';
import { engineOf } from '../src/db/database.ts';

const { values } = parseArgs({
  options: {
    engines: { type: 'string', default: 'sqlite,postgres' },
    duration: { type: 'string', default: '10' },
    users: { type: 'string', default: '10' },
    'per-user': { type: 'string', default: '100000' },
    connections: { type: 'string', default: '32' },
    only: { type: 'string' },
    repeat: { type: 'string', default: '1' },
  },
});
const DURATION_S = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const AUTOCANNON = new URL('../node_modules/autocannon/autocannon.js', import.meta.url).pathname;
const log = (line: string) => process.stdout.write(`${line}\n`);

interface Result {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** A run of the load, with the server's CPU a request (us) where the platform reports it. */
interface SpreadResult extends Result {
  serverUs: number | undefined;
}

async function stop(child: ChildProcess): Promise<void> {
  child.removeAllListeners('exit');
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

function autocannon(url: string, options: { method?: string; body?: string; key?: string; rate?: number; duration?: number; pinned?: boolean }): Promise<Result> {
  const args = [AUTOCANNON, '-j', '-c', String(CONNECTIONS), '-d', String(options.duration ?? DURATION_S)];
  if (options.method !== undefined) args.push('-m', options.method);
  if (options.body !== undefined) args.push('-b', options.body, '-H', 'content-type=application/json');
  if (options.key !== undefined) args.push('-H', `x-api-key=${options.key}`);
  if (options.rate !== undefined) args.push('-R', String(options.rate));
  args.push(url);
  const child =
    options.pinned === false
      ? spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] })
      : spawn('taskset', ['-c', '1', process.execPath, ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
  return resultOf(child);
}

const SPREAD_LOAD = new URL('./spread-load.ts', import.meta.url).pathname;

/** The Idempotency-Keys a load sends: none, the typed client's (time-ordered), or random UUIDs. */
type KeyMode = 'none' | 'idempotent' | 'idempotent-random';

/**
 * POST /v1/donations with a random key of `keysFile`'s on each request (bench/spread-load.ts), on
 * core 1, each with a fresh Idempotency-Key of `mode`'s kind unless it is `none`.
 */
function spreadLoad(url: string, keysFile: string, body: string, duration = DURATION_S, mode: KeyMode = 'none'): Promise<Result> {
  const args = [SPREAD_LOAD, url, String(duration), String(CONNECTIONS), keysFile, body, ...(mode === 'none' ? [] : [mode])];
  const child = spawn('taskset', ['-c', '1', process.execPath, ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
  return resultOf(child);
}

/** autocannon's JSON result, read from the child's output when it exits. */
function resultOf(child: ChildProcess): Promise<Result> {
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.on('exit', () => {
      try {
        const r = JSON.parse(out) as { requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number };
        resolve({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors });
      } catch (error) {
        reject(error);
      }
    });
  });
}

/** The load generator for the workers comparison: the servers need both cores there, so it is not pinned. */
function autocannonUnpinned(url: string, options: Parameters<typeof autocannon>[1]): Promise<Result> {
  return autocannon(url, { ...options, pinned: false });
}

function report(label: string, r: Result): void {
  log(
    `  ${label.padEnd(44)} ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${String(r.p50).padStart(4)} ms  p99 ${String(r.p99).padStart(4)} ms${r.non2xx + r.errors > 0 ? `  (${r.non2xx} non-2xx, ${r.errors} errors)` : ''}`,
  );
}

async function measure(label: string, mode: string, env: Record<string, string>, path: string, options: Parameters<typeof autocannon>[1] = {}): Promise<Result> {
  const { child, port } = await startServer(mode, env);
  try {
    const url = `http://127.0.0.1:${port}${path}`;
    await autocannon(url, { ...options, duration: 3, rate: undefined }); // warm-up
    const result = await autocannon(url, options);
    report(label, result);
    return result;
  } finally {
    await stop(child);
  }
}

const ALMONER = new URL('../bin/almoner.js', import.meta.url).pathname;

/** `almoner check` on the bench database after its writes: every invariant still holds (exits non-zero otherwise). */
function checkDatabase(databaseUrl: string): string {
  const out = execFileSync(process.execPath, [ALMONER, 'check'], { env: { ...process.env, DATABASE_URL: databaseUrl } }).toString();
  const last = out.trim().split('\n').at(-1) ?? '';
  log(`  almoner check: ${last}`);
  return last;
}

/** PostgreSQL's WAL position in bytes and its database's counters so far (undefined for SQLite, or none given). */
async function postgresCounters(databaseUrl: string | undefined): Promise<{ bytes: number; commits: number; inserted: number; fetched: number } | undefined> {
  if (databaseUrl === undefined || engineOf(databaseUrl) !== 'postgres') return undefined;
  return withClient(databaseUrl, async (client) => {
    // A busy backend reports its counters about a second late: read at both ends of a run, the lag falls on both.
    const { rows } = await client.query<{ bytes: string; commits: string; inserted: string; fetched: string }>(
      `select pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text as bytes, xact_commit::text as commits, tup_inserted::text as inserted, tup_fetched::text as fetched
         from pg_stat_database where datname = current_database()`,
    );
    const [row] = rows;
    return row === undefined ? undefined : { bytes: Number(row.bytes), commits: Number(row.commits), inserted: Number(row.inserted), fetched: Number(row.fetched) };
  });
}

/** An operator's token for the servers' /metrics, from the seeding of the engine under measure. */
let metricsToken: string | undefined;

/** The donation writer's and SQLite's counters a server serves (src/metrics.ts), or undefined without a token. */
async function writerCounters(port: number): Promise<Map<string, number> | undefined> {
  if (metricsToken === undefined) return undefined;
  const response = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } });
  if (!response.ok) return undefined;
  const counters = new Map<string, number>();
  for (const line of (await response.text()).split('\n')) {
    const match = /^(almoner_(?:donation_round\w*|sqlite_\w+)_total) (\S+)$/.exec(line);
    if (match !== null) counters.set(match[1] as string, Number(match[2]));
  }
  return counters;
}

/** Requests a round and its time, and on SQLite transactions a commit and commits a sync, between two readings. */
function roundsBetween(before: Map<string, number> | undefined, after: Map<string, number> | undefined): string | undefined {
  if (before === undefined || after === undefined) return undefined;
  const delta = (name: string) => (after.get(`almoner_${name}_total`) ?? 0) - (before.get(`almoner_${name}_total`) ?? 0);
  const rounds = delta('donation_rounds');
  if (rounds === 0) return undefined;
  let text = `rounds: ${rounds}, ${(delta('donation_round_requests') / rounds).toFixed(1)} requests and ${((1000 * delta('donation_round_seconds')) / rounds).toFixed(2)} ms each`;
  const commits = delta('sqlite_commits');
  if (commits > 0) text += `; SQLite's commits ${commits}, ${(delta('sqlite_committed_transactions') / commits).toFixed(2)} transactions each, ${delta('sqlite_wal_syncs')} syncs`;
  return text;
}

/** POST /v1/donations spread over many donors' funds, after a warm-up. */
async function measureSpread(label: string, env: Record<string, string>, keysFile: string, body: string, idempotent = false): Promise<SpreadResult> {
  // Keyed: the typed client's keys (time-ordered), or random UUIDs with BENCH_KEYS=random.
  const mode: KeyMode = !idempotent ? 'none' : process.env.BENCH_KEYS === 'random' ? 'idempotent-random' : 'idempotent';
  // /metrics on the one listener, behind the operator's token: the writer's rounds (writerCounters).
  const { child, port } = await startServer('app', { ...env, METRICS_ON_PUBLIC_PORT: 'true' });
  try {
    const url = `http://127.0.0.1:${port}/v1/donations`;
    await spreadLoad(url, keysFile, body, 3, mode); // warm-up
    const countedBefore = await postgresCounters(env.DATABASE_URL);
    const roundsBefore = await writerCounters(port);
    const stopPerf = await perfRecord(label);
    const cpuBefore = cpuNow(child);
    const result = await spreadLoad(url, keysFile, body, DURATION_S, mode);
    const cpuAfter = cpuNow(child);
    const perfFile = await stopPerf();
    report(label, result);
    if (perfFile !== undefined) log(`    perf samples of the whole machine: ${perfFile} (${Math.round(result.rps * DURATION_S)} requests)`);
    const rounds = roundsBetween(roundsBefore, await writerCounters(port));
    if (rounds !== undefined) log(`    ${rounds}`);
    const countedAfter = await postgresCounters(env.DATABASE_URL);
    // What the run wrote to PostgreSQL's WAL (the whole server's: nothing else runs beside the bench), and its database's rows.
    if (countedBefore !== undefined && countedAfter !== undefined && result.rps > 0) {
      const requests = result.rps * DURATION_S;
      const each = (key: 'commits' | 'inserted' | 'fetched') => ((countedAfter[key] - countedBefore[key]) / requests).toFixed(2);
      log(
        `    PostgreSQL's WAL: ${((countedAfter.bytes - countedBefore.bytes) / requests / 1024).toFixed(2)} KB a request; a request's commits ${each('commits')}, rows inserted ${each('inserted')}, rows fetched ${each('fetched')}`,
      );
    }
    // The CPU a request costs, the server's and the whole machine's (the database and the load
    // generator too): steadier than requests a second where the machine is the limit.
    const perRequest = (from: ReturnType<typeof cpuMs>, to: ReturnType<typeof cpuMs>) =>
      from === undefined || to === undefined || result.rps === 0 ? undefined : ((to.cpu - from.cpu) * 1000) / (result.rps * DURATION_S);
    const server = perRequest(cpuBefore.server, cpuAfter.server);
    const machine = perRequest(cpuBefore.machine, cpuAfter.machine);
    if (server !== undefined && machine !== undefined) {
      log(
        `    CPU a request: ${machine.toFixed(0)} us on the machine, ${server.toFixed(0)} us of them the server's; machine ${share(cpuBefore.machine, cpuAfter.machine)}% of a core busy`,
      );
    }
    return { ...result, serverUs: server };
  } finally {
    await stop(child);
  }
}

const OPEN_LOOP = new URL('./open-loop.ts', import.meta.url).pathname;

/** CPU time used so far (ms) by process `pid`, or by the whole machine without one; undefined where /proc is not there. */
function cpuMs(pid?: number): { cpu: number; at: number } | undefined {
  try {
    const at = performance.now();
    if (pid === undefined) {
      const [user, nice, system, , , irq, softirq] = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
      return { cpu: ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0)) * 10, at };
    }
    return { cpu: statCpuMs(readFileSync(`/proc/${pid}/stat`, 'utf8')), at };
  } catch {
    return undefined;
  }
}

/** The CPU (ms) a process used so far, from its /proc/<pid>/stat text. */
function statCpuMs(stat: string): number {
  // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
  const fields = (stat.split(') ')[1] ?? '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The CPU used so far by the server `child` and by the whole machine. */
function cpuNow(child: ChildProcess): { server: ReturnType<typeof cpuMs>; machine: ReturnType<typeof cpuMs> } {
  return { server: child.pid === undefined ? undefined : cpuMs(child.pid), machine: cpuMs() };
}

/** The share of one core (percent) used between two cpuMs readings. */
function share(from: ReturnType<typeof cpuMs>, to: ReturnType<typeof cpuMs>): number | undefined {
  if (from === undefined || to === undefined) return undefined;
  return Math.round((100 * (to.cpu - from.cpu)) / (to.at - from.at));
}

/** Latency at a fixed rate, evenly spaced (bench/open-loop.ts), after an autocannon warm-up. */
async function measureAtRate(label: string, mode: string, env: Record<string, string>, path: string, rate: number, key?: string): Promise<Result> {
  const { child, port } = await startServer(mode, env);
  try {
    const url = `http://127.0.0.1:${port}${path}`;
    await autocannon(url, { key, duration: 3 }); // warm-up
    const args = ['-c', '1', process.execPath, OPEN_LOOP, url, String(rate), String(DURATION_S), String(CONNECTIONS)];
    if (key !== undefined) args.push(`x-api-key=${key}`);
    const before = cpuNow(child);
    const r = JSON.parse(execFileSync('taskset', args).toString()) as { rps: number; p50: number; p99: number; non2xx: number; errors: number };
    report(label, r);
    // Under an open loop the server is not saturated by design: how much of a core it and the
    // whole machine (the database, the client) used says whether the latency is queueing.
    const after = cpuNow(child);
    const server = share(before.server, after.server);
    const machine = share(before.machine, after.machine);
    if (server !== undefined && machine !== undefined) log(`  ${''.padEnd(44)} CPU: the server ${server}% of a core, the machine ${machine}% of one (of ${cpus().length})`);
    return r;
  } finally {
    await stop(child);
  }
}

/**
 * What every run of the load over 100 funds needs: its body, the donors' keys in a file, `--repeat`
 * checked, and the seeded journal taken into the ledger's log first, as a platform running its job
 * has it (a run then measures the job beside new entries, not its catching up on a million).
 */
function spreadRuns(databaseUrl: string, dir: string, seeded: Awaited<ReturnType<typeof seedBench>>): { body: string; keysFile: string; repeat: number } {
  const body = JSON.stringify({ amount: 10, ein: seeded.ein });
  const keysFile = join(dir, 'spread-keys.json');
  writeFileSync(keysFile, JSON.stringify(seeded.spreadKeys));
  const repeat = Number(values.repeat);
  if (!Number.isInteger(repeat) || repeat < 1) throw new Error('--repeat is a whole number from 1');
  takeUpLog(databaseUrl, 'the seeded journal');
  return { body, keysFile, repeat };
}

async function benchEngine(engine: string): Promise<string[]> {
  const { databaseUrl, dir, cleanup } = await freshDatabase(engine, 'bench');
  try {
    log(`\n== ${engine}: seeding ${Number(values.users) * Number(values['per-user'])} donations`);
    const seeded = await seedBench(databaseUrl, Number(values.users), Number(values['per-user']), log);
    metricsToken = seeded.operatorToken;
    const env = { DATABASE_URL: databaseUrl };
    const listPath = '/v1/donations?page=1&per_page=25';
    if (values.only === 'workers') {
      log(`  -- almoner serve --workers 1 and 2`);
      return await benchWorkers(engine, databaseUrl, seeded, autocannonUnpinned, log); // awaited here, before the finally removes the database
    }

    if (values.only === 'keyed') return await keyedTriples(engine, databaseUrl, env, dir, seeded);
    if (values.only === 'ledger' || values.only === 'chains') {
      return await ledgerPairs(engine, databaseUrl, env, dir, seeded, values.only === 'ledger' ? 'job' : values.only);
    }
    if (values.only === 'post') {
      // The writes alone (iterating on them): the naive insert, one fund, many funds (with and without Idempotency-Keys), `--repeat` times in turn.
      const { body, keysFile, repeat: turns } = spreadRuns(databaseUrl, dir, seeded);
      const rows: string[] = [];
      const ratios = { post: [] as number[], spread: [] as number[], keyed: [] as number[], chained: [] as number[] };
      for (let turn = 1; turn <= turns; turn += 1) {
        const of = turns === 1 ? '' : ` (turn ${turn})`;
        const naive = await measure(`naive durable single-row insert${of}`, 'naive', env, '/', { method: 'POST', body });
        const post = await measure(`POST /v1/donations (durable, with journal)${of}`, 'app', env, '/v1/donations', { method: 'POST', body, key: seeded.key });
        // The runs before it wrote entries no job took up: taken up now, as a platform's job would have.
        takeUpLog(databaseUrl, 'the entries of the runs before');
        const spread = await measureSpread(`POST /v1/donations over ${seeded.spreadKeys.length} funds${of}`, env, keysFile, body);
        const keyed = await measureSpread(`the same, each with an Idempotency-Key${of}`, env, keysFile, body, true);
        // The ledger's log taken up and checkpointed every second beside the same load (rules §26),
        // from a log with nothing waiting, as the run without the job started.
        takeUpLog(databaseUrl, 'the entries of the runs before');
        const chained = await measureSpread(
          `the same unkeyed, the ledger's log taken up every second${of}`,
          { ...env, LEDGER_JOB_MS: '1000', LEDGER_CHECKPOINT_INTERVAL_MS: '1000' },
          keysFile,
          body,
        );
        ratios.post.push(post.rps / naive.rps);
        ratios.spread.push(spread.rps / naive.rps);
        ratios.keyed.push(keyed.rps / naive.rps);
        rows.push(
          `| ${engine} | POST /v1/donations${of} | ${post.rps.toFixed(0)} | ${post.p50} / ${post.p99} | naive insert ${naive.rps.toFixed(0)} | **${(post.rps / naive.rps).toFixed(3)}** |`,
          `| ${engine} | POST /v1/donations over ${seeded.spreadKeys.length} funds${of} | ${spread.rps.toFixed(0)} | ${spread.p50} / ${spread.p99} | naive insert ${naive.rps.toFixed(0)} | **${(spread.rps / naive.rps).toFixed(3)}** |`,
          `| ${engine} | the same with Idempotency-Keys${of} | ${keyed.rps.toFixed(0)} | ${keyed.p50} / ${keyed.p99} | naive insert ${naive.rps.toFixed(0)} | **${(keyed.rps / naive.rps).toFixed(3)}** |`,
          `| ${engine} | the same unkeyed, the ledger's log taken up every second${of} | ${chained.rps.toFixed(0)} | ${chained.p50} / ${chained.p99} | without it ${spread.rps.toFixed(0)} | **${(chained.rps / spread.rps).toFixed(3)}** |`,
        );
        ratios.chained.push(chained.rps / spread.rps);
      }
      checkDatabase(databaseUrl);
      if (turns > 1) {
        rows.push(
          `| ${engine} | POST /v1/donations, median of ${turns} | | | | **${median(ratios.post).toFixed(3)}** |`,
          `| ${engine} | POST /v1/donations over ${seeded.spreadKeys.length} funds, median of ${turns} | | | | **${median(ratios.spread).toFixed(3)}** |`,
          `| ${engine} | the same with Idempotency-Keys, median of ${turns} | | | | **${median(ratios.keyed).toFixed(3)}** |`,
          `| ${engine} | with the ledger's log taken up every second / without, median of ${turns} | | | | **${median(ratios.chained).toFixed(3)}** |`,
        );
      }
      return rows;
    }
    // The ceiling answers a body of exactly the list response's size.
    const probe = await startServer('app', env);
    const sample = await fetch(`http://127.0.0.1:${probe.port}${listPath}`, { headers: { 'x-api-key': seeded.key } }).then((r) => r.text());
    const npSample = await fetch(`http://127.0.0.1:${probe.port}/v1/non_profits/${seeded.ein}`, { headers: { 'x-api-key': seeded.key } }).then((r) => r.text());
    await stop(probe.child);
    const listBody = join(dir, 'list.json');
    const npBody = join(dir, 'np.json');
    writeFileSync(listBody, sample);
    writeFileSync(npBody, npSample);
    if (values.only === 'get') {
      // The list alone (iterating on it): three runs, each beside its own ceiling, then at a fixed 2,000 req/s.
      const runs: string[] = [];
      for (let run = 1; run <= 3; run += 1) {
        const ceiling = await measure(`ceiling (${sample.length} B body), run ${run}`, 'ceiling', { BODY_FILE: listBody }, '/');
        const list = await measure(`GET /v1/donations, run ${run}`, 'app', env, listPath, { key: seeded.key });
        const fixed = await measureAtRate(`the same at 2,000 req/s (open loop), run ${run}`, 'app', env, listPath, 2000, seeded.key);
        runs.push(
          `| ${engine} | GET /v1/donations (run ${run}) | ${list.rps.toFixed(0)} | ${list.p50} / ${list.p99} | ceiling ${ceiling.rps.toFixed(0)} | **${(list.rps / ceiling.rps).toFixed(3)}** |`,
          `| ${engine} | GET /v1/donations at 2,000 req/s (run ${run}) | ${fixed.rps.toFixed(0)} | ${fixed.p50} / **${fixed.p99}** | | |`,
        );
      }
      return runs;
    }

    const ceilingList = await measure(`ceiling (${sample.length} B body)`, 'ceiling', { BODY_FILE: listBody }, '/');
    const list = await measure('GET /v1/donations (100k of 1M, 25/page)', 'app', env, listPath, { key: seeded.key });
    // The client's own delay at that rate, against the ceiling: the floor under the figure below.
    const fixedCeiling = await measureAtRate('ceiling at 2,000 req/s (open loop)', 'ceiling', { BODY_FILE: listBody }, '/', 2000);
    const fixed = await measureAtRate('GET /v1/donations at 2,000 req/s (open loop)', 'app', env, listPath, 2000, seeded.key);
    const ceilingNp = await measure(`ceiling (${npSample.length} B body)`, 'ceiling', { BODY_FILE: npBody }, '/');
    const np = await measure('GET /v1/non_profits/:ein', 'app', env, `/v1/non_profits/${seeded.ein}`, { key: seeded.key });
    const body = JSON.stringify({ amount: 10, ein: seeded.ein });
    const naive = await measure('naive durable single-row insert', 'naive', env, '/', { method: 'POST', body });
    const post = await measure('POST /v1/donations (durable, with journal)', 'app', env, '/v1/donations', { method: 'POST', body, key: seeded.key });
    const keysFile = join(dir, 'spread-keys.json');
    writeFileSync(keysFile, JSON.stringify(seeded.spreadKeys));
    const spread = await measureSpread(`POST /v1/donations over ${seeded.spreadKeys.length} funds`, env, keysFile, body);

    checkDatabase(databaseUrl);
    const ratio = (a: Result, b: Result) => (a.rps / b.rps).toFixed(3);
    log(`  -- almoner serve --workers 1 and 2`);
    const workerRows = await benchWorkers(engine, databaseUrl, seeded, autocannonUnpinned, log);
    return [
      ...workerRows,
      `| ${engine} | GET /v1/donations | ${list.rps.toFixed(0)} | ${list.p50} / ${list.p99} | ceiling ${ceilingList.rps.toFixed(0)} | **${ratio(list, ceilingList)}** |`,
      `| ${engine} | GET /v1/donations at 2,000 req/s | ${fixed.rps.toFixed(0)} | ${fixed.p50} / **${fixed.p99}** | ceiling at 2,000 req/s: ${fixedCeiling.p50} / ${fixedCeiling.p99} ms | |`,
      `| ${engine} | GET /v1/non_profits/:ein | ${np.rps.toFixed(0)} | ${np.p50} / ${np.p99} | ceiling ${ceilingNp.rps.toFixed(0)} | **${ratio(np, ceilingNp)}** |`,
      `| ${engine} | POST /v1/donations | ${post.rps.toFixed(0)} | ${post.p50} / ${post.p99} | naive insert ${naive.rps.toFixed(0)} | **${ratio(post, naive)}** |`,
      `| ${engine} | POST /v1/donations over ${seeded.spreadKeys.length} funds | ${spread.rps.toFixed(0)} | ${spread.p50} / ${spread.p99} | naive insert ${naive.rps.toFixed(0)} | **${ratio(spread, naive)}** |`,
    ];
  } finally {
    await cleanup();
  }
}

/** The journal's entries not yet in the ledger's log taken up and checkpointed (`almoner ledger checkpoint`), timed. */
function takeUpLog(databaseUrl: string, what: string): void {
  const started = performance.now();
  execFileSync(process.execPath, [ALMONER, 'ledger', 'checkpoint'], { env: { ...process.env, DATABASE_URL: databaseUrl } });
  log(`  ${what} taken into the ledger's log and checkpointed in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/**
 * The ledger's cost (docs/rules.md §26), the same load over 100 funds against a baseline, `--repeat`
 * pairs, alternated, so that the machine's drift falls on both sides; the median of the pairs'
 * ratios. The arm measured has the job, taking the log up and checkpointing every second. Its
 * baseline: `job`, the same server without the job (`--only ledger`); `chains`, a server with the
 * chains off (bench/chains-off.ts: no entry hashed, placed or named as waiting) and no job, issue
 * 61's measure (`--only chains`).
 */
async function ledgerPairs(
  engine: string,
  databaseUrl: string,
  baseEnv: Record<string, string>,
  dir: string,
  seeded: Awaited<ReturnType<typeof seedBench>>,
  baseline: 'job' | 'chains',
): Promise<string[]> {
  const { body, keysFile, repeat: pairs } = spreadRuns(databaseUrl, dir, seeded);
  // Every run starts from this copy: with nothing waiting for the log (a run with the job after one
  // without would otherwise spend its seconds catching up on the other's entries, as no platform
  // running its job does: docs/performance-history.md, 2026-11-30, late night), and without the rows
  // of the runs before it, which made each run slower than the one before (2026-12-01, midday).
  let started = performance.now();
  const snapshot = await snapshotOf(databaseUrl);
  log(`  the database copied, to start each run from, in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const ratios: number[] = [];
  const runs = { off: [] as SpreadResult[], on: [] as SpreadResult[] };
  const rows: string[] = [];
  const chains = baseline === 'chains';
  const env = chains ? { ...baseEnv, BENCH_CHAINS: 'off' } : baseEnv;
  const withJob = { ...baseEnv, ...(chains ? { BENCH_CHAINS: 'on' } : {}), LEDGER_JOB_MS: '1000', LEDGER_CHECKPOINT_INTERVAL_MS: '1000' };
  const [offLabel, onLabel] = chains ? ['chains off', 'chains on, log job every second'] : ['no log job', 'log job every second'];
  const run = async (arm: Record<string, string>, pair: number) => {
    started = performance.now();
    await snapshot.restore();
    log(`  the database restored from its copy in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return measureSpread(`over ${seeded.spreadKeys.length} funds, ${arm === env ? offLabel : onLabel} (pair ${pair})`, arm, keysFile, body);
  };
  try {
    for (let pair = 1; pair <= pairs; pair += 1) {
      // Which goes first alternates too: the machine drifts.
      const [a, b] = pair % 2 === 1 ? [env, withJob] : [withJob, env];
      const first = await run(a, pair);
      const second = await run(b, pair);
      const [without, withIt] = a === env ? [first, second] : [second, first];
      runs.off.push(without);
      runs.on.push(withIt);
      ratios.push(withIt.rps / without.rps);
      rows.push(
        `| ${engine} | over 100 funds, ${onLabel} (pair ${pair}) | ${withIt.rps.toFixed(0)} | ${withIt.p50} / ${withIt.p99} | ${offLabel} ${without.rps.toFixed(0)} | **${(withIt.rps / without.rps).toFixed(3)}** |`,
      );
    }
  } finally {
    await snapshot.drop();
  }
  // The entries written with the chains off carry no hash and no place, so `almoner check` would
  // rightly name them: the chains' own checks run in the tests and in `--only ledger`.
  if (chains) log(`  (not checked: the chains-off runs wrote entries outside the log by design)`);
  else checkDatabase(databaseUrl);
  const measure = chains ? 'chains on with the job / chains off' : 'with the log job / without';
  rows.push(`| ${engine} | ${measure}, median of ${pairs} pairs | | | | **${median(ratios).toFixed(3)}** |`);
  // Two more views of the same runs, less moved by one slow run: each arm's median, and the
  // server's CPU a request (the cost itself, where the machine rather than the server is the limit).
  const [offRps, onRps] = [median(runs.off.map((r) => r.rps)), median(runs.on.map((r) => r.rps))];
  rows.push(`| ${engine} | each arm's median: ${onLabel} / ${offLabel} | ${onRps.toFixed(0)} | | ${offRps.toFixed(0)} | ${(onRps / offRps).toFixed(3)} |`);
  const cpu = (rs: SpreadResult[]) => rs.map((r) => r.serverUs).filter((us) => us !== undefined);
  if (cpu(runs.off).length === pairs && cpu(runs.on).length === pairs) {
    const [offUs, onUs] = [median(cpu(runs.off)), median(cpu(runs.on))];
    rows.push(`| ${engine} | the server's CPU a request, medians: ${onLabel} / ${offLabel} | ${onUs.toFixed(0)} us | | ${offUs.toFixed(0)} us | ${(onUs / offUs).toFixed(3)} |`);
  }
  return rows;
}

/** The write system calls a process has made so far (/proc/<pid>/io), where the platform says. */
function writeCalls(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const line = readFileSync(`/proc/${pid}/io`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('syscw:'));
    return line === undefined ? undefined : Number(line.slice('syscw:'.length));
  } catch {
    return undefined;
  }
}

/**
 * The CPU (ms) used so far by each PostgreSQL process of this machine (its backends, WAL writer,
 * checkpointer), by pid, from /proc: what a request costs the database, steadier than requests a
 * second where the machine's other tenants move the pace. Undefined where /proc is not Linux's.
 */
function postgresCpuMs(): Map<string, number> | undefined {
  try {
    const byPid = new Map<string, number>();
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        if (stat.includes('(postgres)')) byPid.set(pid, statCpuMs(stat));
      } catch {
        // It exited meanwhile.
      }
    }
    return byPid;
  } catch {
    return undefined;
  }
}

/** PostgreSQL's CPU (ms) between two readings: of the processes alive at the second (one that exited meanwhile took its time with it). */
function postgresCpuSince(before: Map<string, number> | undefined, after: Map<string, number> | undefined): number | undefined {
  if (before === undefined || after === undefined) return undefined;
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}

const KEY_ARMS: readonly KeyMode[] = ['none', 'idempotent', 'idempotent-random'];
const KEY_LABELS: Record<KeyMode, string> = { none: 'without keys', idempotent: "the client's keys", 'idempotent-random': 'random UUID keys' };

interface KeyedRun extends SpreadResult {
  /** The server's write system calls a request (SQLite's WAL is written by the server itself). */
  writes: number | undefined;
  /** PostgreSQL's WAL a request, bytes. */
  wal: number | undefined;
  /** PostgreSQL's processes' CPU a request, us. */
  postgresUs: number | undefined;
}

/**
 * Issue 60's keyed measure (`--only keyed --repeat N`): the load over 100 funds without keys, with
 * the typed client's keys (time-ordered) and with random UUIDs, N triples on one server and one
 * database, the arms' order turning each triple. A fresh server and a restored copy for each run
 * spread one pair's ratio from 0.56 to 1.10 on a noisy machine (docs/performance-history.md,
 * 2026-12-05, night); on one server the arms share its warmed code and caches, and the machine's
 * drift and the tables' growth fall on every arm alike.
 */
async function keyedTriples(engine: string, databaseUrl: string, env: Record<string, string>, dir: string, seeded: Awaited<ReturnType<typeof seedBench>>): Promise<string[]> {
  const { body, keysFile, repeat: triples } = spreadRuns(databaseUrl, dir, seeded);
  const runs: Record<KeyMode, KeyedRun[]> = { none: [], idempotent: [], 'idempotent-random': [] };
  const rows: string[] = [];
  const postgres = engine === 'postgres';
  const { child, port } = await startServer('app', env);
  try {
    const url = `http://127.0.0.1:${port}/v1/donations`;
    for (const mode of KEY_ARMS) await spreadLoad(url, keysFile, body, 3, mode); // warm-up, each arm
    for (let triple = 1; triple <= triples; triple += 1) {
      const order = KEY_ARMS.map((_, i) => KEY_ARMS[(i + triple - 1) % KEY_ARMS.length] as KeyMode);
      for (const mode of order) {
        const [counted, cpu, writes, pgCpu] = [await postgresCounters(databaseUrl), cpuNow(child), writeCalls(child.pid), postgres ? postgresCpuMs() : undefined];
        const result = await spreadLoad(url, keysFile, body, DURATION_S, mode);
        const [cpuAfter, writesAfter, pgCpuAfter] = [cpuNow(child), writeCalls(child.pid), postgres ? postgresCpuMs() : undefined];
        const countedAfter = await postgresCounters(databaseUrl);
        const requests = result.rps * DURATION_S;
        const each = (from: number | undefined, to: number | undefined) => (from === undefined || to === undefined || requests === 0 ? undefined : (to - from) / requests);
        const serverMs = each(cpu.server?.cpu, cpuAfter.server?.cpu);
        const pgMs = postgresCpuSince(pgCpu, pgCpuAfter);
        const postgresMs = pgMs === undefined || requests === 0 ? undefined : pgMs / requests;
        const run: KeyedRun = {
          ...result,
          serverUs: serverMs === undefined ? undefined : serverMs * 1000,
          writes: each(writes, writesAfter),
          wal: each(counted?.bytes, countedAfter?.bytes),
          postgresUs: postgresMs === undefined ? undefined : postgresMs * 1000,
        };
        runs[mode].push(run);
        report(`${KEY_LABELS[mode]} (triple ${triple})`, result);
        const server = run.serverUs === undefined ? '' : `the server's CPU ${run.serverUs.toFixed(0)} us a request`;
        const io =
          run.wal !== undefined
            ? `, PostgreSQL's CPU ${run.postgresUs?.toFixed(0) ?? '-'} us and WAL ${(run.wal / 1024).toFixed(2)} KB`
            : run.writes !== undefined
              ? `, its write calls ${run.writes.toFixed(1)}`
              : '';
        log(`    ${server}${io}; machine ${share(cpu.machine, cpuAfter.machine)}% of a core busy`);
      }
      const [none, client, random] = KEY_ARMS.map((mode) => runs[mode][triple - 1] as KeyedRun) as [KeyedRun, KeyedRun, KeyedRun];
      rows.push(
        `| ${engine} | over 100 funds, the client's keys (triple ${triple}) | ${client.rps.toFixed(0)} | ${client.p50} / ${client.p99} | without keys ${none.rps.toFixed(0)} | **${(client.rps / none.rps).toFixed(3)}** |`,
        `| ${engine} | over 100 funds, random UUID keys (triple ${triple}) | ${random.rps.toFixed(0)} | ${random.p50} / ${random.p99} | without keys ${none.rps.toFixed(0)} | ${(random.rps / none.rps).toFixed(3)} |`,
      );
    }
  } finally {
    await stop(child);
  }
  checkDatabase(databaseUrl);
  const ratios = (mode: KeyMode) => runs[mode].map((r, i) => r.rps / (runs.none[i] as KeyedRun).rps);
  const rps = (mode: KeyMode) => median(runs[mode].map((r) => r.rps));
  rows.push(
    `| ${engine} | the client's keys / without keys, median of ${triples} triples | | | | **${median(ratios('idempotent')).toFixed(3)}** |`,
    `| ${engine} | random UUID keys / without keys, median of ${triples} triples | | | | ${median(ratios('idempotent-random')).toFixed(3)} |`,
    `| ${engine} | each arm's median: the client's keys, random keys / without keys | ${rps('idempotent').toFixed(0)}, ${rps('idempotent-random').toFixed(0)} | | ${rps('none').toFixed(0)} | ${(rps('idempotent') / rps('none')).toFixed(3)}, ${(rps('idempotent-random') / rps('none')).toFixed(3)} |`,
  );
  // Where the machine rather than the server sets the pace, the cost itself: the server's CPU and
  // the writes a request, each arm's median.
  const medianOf = (mode: KeyMode, of: (r: KeyedRun) => number | undefined) => {
    const known = runs[mode].map(of).filter((v) => v !== undefined);
    return known.length === triples ? median(known) : undefined;
  };
  const per = (of: (r: KeyedRun) => number | undefined, unit: string, digits: number) => KEY_ARMS.map((mode) => `${medianOf(mode, of)?.toFixed(digits) ?? '-'}${unit}`).join(', ');
  rows.push(`| ${engine} | a request's medians (without keys, the client's keys, random keys): the server's CPU | ${per((r) => r.serverUs, ' us', 0)} | | | |`);
  if (engine === 'postgres') {
    rows.push(`| ${engine} | the same: PostgreSQL's CPU | ${per((r) => r.postgresUs, ' us', 0)} | | | |`);
    rows.push(`| ${engine} | the same: PostgreSQL's WAL | ${per((r) => (r.wal === undefined ? undefined : r.wal / 1024), ' KB', 2)} | | | |`);
  } else rows.push(`| ${engine} | the same: the server's write calls | ${per((r) => r.writes, '', 1)} | | | |`);
  return rows;
}

const rows: string[] = [];
const engines = (values.engines ?? '').split(',').map((e) => e.trim());
if (values.only === undefined || ['api', 'workers', 'post', 'ledger', 'chains', 'keyed', 'get'].includes(values.only)) {
  for (const engine of engines) rows.push(...(await benchEngine(engine)));
}
const exportRows = values.only === undefined || values.only === 'exports' ? await benchExports(engines, log) : [];
const webhookRows = values.only === undefined || values.only === 'webhooks' ? await benchWebhooks(engines, log) : [];
const clientRows = values.only === undefined || values.only === 'client' ? await benchClient(log) : [];
const directory = values.only === undefined || values.only === 'directory' ? await benchDirectory(log) : [];
const paymentRows = values.only === undefined || values.only === 'payments' ? await benchPayments(engines, log) : [];
const valuationRows = values.only === undefined || values.only === 'valuation' ? await benchValuation(engines, log) : [];
const sequencerRows = values.only === undefined || values.only === 'sequencer' ? await benchSequencer(engines, log) : [];
log(`\nMachine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}; ${CONNECTIONS} connections, ${DURATION_S} s per run after a 3 s warm-up.\n`);
if (rows.length > 0) {
  log('| engine | scenario | req/s | p50 / p99 ms | baseline (req/s) | ratio |');
  log('|---|---|---|---|---|---|');
  for (const row of rows) log(row);
  log('');
}
for (const row of exportRows) log(row);
for (const row of webhookRows) log(row);
for (const row of clientRows) log(row);
for (const row of directory) log(row);
for (const row of paymentRows) log(row);
for (const row of valuationRows) log(row);
for (const row of sequencerRows) log(row);
