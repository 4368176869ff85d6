// `npm run drill`: the operator's drill of docs/operating.md, on one machine.
//   1. A PostgreSQL cluster of its own (WAL archived, a base backup), Redis
//      (REDIS_URL, default the local one) behind a proxy the drill can cut.
//   2. Two nodes of the previous release (checked out of this repository's
//      history and installed) serving a bounded load: donations and lists,
//      through a client that sends each request to a node that reports ready.
//   3. A rolling upgrade to this release under that write load, node by node
//      (the new release migrates beside the old nodes, then drain, stop, start).
//   4. A Redis outage of a few seconds under the same load.
//   5. PostgreSQL turned into a black hole (nothing passes, nothing is closed, as
//      when its host powers off) for a few seconds: nodes answer 503 within their
//      deadline instead of hanging, and serve again on new connections after.
//   6. A point-in-time restore to a moment after the upgrade.
// `almoner check` after each step. Each step prints its requests, errors, p50
// and p99; the drill fails on a lost request outside the black hole, on a
// request that hung in it, or on a node that did not recover.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { almonerAsync, EIN, log, machinePath, PgCluster, previousRelease, query, ROOT, startNode, type Node } from './common.ts';
import { VERSION } from '../../src/version.ts';
import { prepareDonor, restore } from './pitr.ts';
import { CuttableProxy } from './proxy.ts';

const PORT = Number(process.env.DRILL_PORT ?? 55442);
// The newest release CHANGELOG.md names (tags do not travel with a clone), or DRILL_PREVIOUS_RELEASE.
const PREVIOUS = process.env.DRILL_PREVIOUS_RELEASE ?? previousRelease(VERSION).commit;
const RATE = Number(process.env.DRILL_RATE ?? 40); // requests a second, bounded
/** How long the drill's client waits for an answer; a node must answer (503 at worst) well within it. */
const CLIENT_TIMEOUT_MS = 10_000;
/**
 * The nodes' database timeouts in the drill. In a silent outage a request waits at most the connect
 * timeout (for a pooled connection, or to open one), then each statement's timeout and 2 s more:
 * 2 + 4 s here, within the client's 10 s. (The defaults, 5 s and 10 + 2 s, are for a real network.)
 */
const STATEMENT_TIMEOUT_MS = 2_000;
const CONNECT_TIMEOUT_MS = 2_000;
const BLACKHOLE_MS = 6_000;
const REDIS = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');

interface Sample {
  at: number;
  ms: number;
  ok: boolean;
  /** The last answer's status; 0 when no answer came (a timeout, a closed connection). */
  status: number;
  id?: number;
}

/** A client that sends each request to a node whose /readyz answered 200 last (checked every 100 ms), retrying once elsewhere. */
class Load {
  readonly samples: Sample[] = [];
  readonly #nodes = new Map<string, boolean>();
  #running = true;
  #done: Promise<void> = Promise.resolve();
  readonly #key: string;

  constructor(key: string) {
    this.#key = key;
  }

  add(base: string): void {
    this.#nodes.set(base, true);
  }

  remove(base: string): void {
    this.#nodes.delete(base);
  }

  start(): void {
    const probe = setInterval(() => {
      for (const base of this.#nodes.keys()) {
        fetch(`${base}/readyz`, { signal: AbortSignal.timeout(500) })
          .then((r) => this.#nodes.has(base) && this.#nodes.set(base, r.ok))
          .catch(() => this.#nodes.has(base) && this.#nodes.set(base, false));
      }
    }, 100);
    let n = 0;
    this.#done = (async () => {
      const started = Date.now();
      const inflight = new Set<Promise<void>>();
      while (this.#running) {
        const due = started + (n * 1000) / RATE;
        if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
        const i = n++;
        const p = this.#one(i % 2 === 0).finally(() => inflight.delete(p));
        inflight.add(p);
      }
      await Promise.all(inflight);
      clearInterval(probe);
    })();
  }

  async stop(): Promise<void> {
    this.#running = false;
    await this.#done;
  }

  async #one(post: boolean): Promise<void> {
    const at = Date.now();
    let status = 0;
    for (let attempt = 0; attempt < 2; attempt++) {
      // Ready nodes first; when none is (the database gone for all), any node, as a proxy does.
      const ready = [...this.#nodes].filter(([, up]) => up).map(([base]) => base);
      const candidates = ready.length > 0 ? ready : [...this.#nodes.keys()];
      const base = candidates[(at + attempt) % Math.max(1, candidates.length)];
      if (base === undefined) break;
      try {
        const res = post
          ? await fetch(`${base}/v1/donations`, {
              method: 'POST',
              headers: { 'x-api-key': this.#key, 'content-type': 'application/json', 'idempotency-key': `drill-${at}-${Math.random()}` },
              body: JSON.stringify({ ein: EIN, amount: 10 }),
              signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
            })
          : await fetch(`${base}/v1/donations?per_page=5`, { headers: { 'x-api-key': this.#key }, signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
        status = res.status;
        if (res.ok) {
          const body = post ? ((await res.json()) as { id: number }) : (await res.arrayBuffer(), undefined);
          this.samples.push({ at, ms: Date.now() - at, ok: true, status, ...(body === undefined ? {} : { id: body.id }) });
          return;
        }
        await res.arrayBuffer();
      } catch {
        // the node went away mid-request, or did not answer in time: the next attempt goes elsewhere
        status = 0;
      }
    }
    this.samples.push({ at, ms: Date.now() - at, ok: false, status });
  }

  /** The requests begun in [from, to): how many, how many failed (and of those, how many got no answer at all), and the latency of all of them. */
  between(from: number, to: number): Step {
    const s = this.samples.filter((x) => x.at >= from && x.at < to);
    const ms = s.map((x) => x.ms).sort((a, b) => a - b);
    const pct = (p: number) => ms[Math.min(ms.length - 1, Math.floor((ms.length * p) / 100))] ?? 0;
    const statuses: Record<string, number> = {};
    for (const x of s.filter((y) => !y.ok)) statuses[x.status] = (statuses[x.status] ?? 0) + 1;
    return { requests: s.length, errors: s.filter((x) => !x.ok).length, unanswered: s.filter((x) => x.status === 0).length, p50: pct(50), p99: pct(99), statuses };
  }
}

interface Step {
  requests: number;
  errors: number;
  /** Errors with no answer at all: the client gave up waiting, or the connection closed. */
  unanswered: number;
  p50: number;
  p99: number;
  /** The failed requests by their last status (0: no answer). */
  statuses: Record<string, number>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every step's figures, printed as it ends and again as a table at the end. */
const steps: Array<[string, Step]> = [];
function report(name: string, step: Step): Step {
  steps.push([name, step]);
  log(
    `   ${name}: ${step.requests} requests, ${step.errors} errors (${step.unanswered} unanswered), p50 ${step.p50} ms, p99 ${step.p99} ms${step.errors > 0 ? ` (errors by status: ${JSON.stringify(step.statuses)})` : ''}`,
  );
  return step;
}

async function check(url: string, step: string): Promise<void> {
  const out = await almonerAsync(['check'], { DATABASE_URL: url });
  log(`   almoner check after ${step}: ${out.includes('All invariants hold.') ? 'all invariants hold' : 'FAILED'}`);
  if (!out.includes('All invariants hold.')) {
    log(out);
    process.exitCode = 1;
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'almoner-drill-'));
  const previous = join(dir, 'previous');
  const cluster = new PgCluster(dir, PORT);
  const redis = new CuttableProxy({ host: REDIS.hostname, port: Number(REDIS.port || 6379) });
  // The nodes reach PostgreSQL through a proxy the drill can turn into a black hole.
  const database = new CuttableProxy({ host: '127.0.0.1', port: PORT });
  const nodes: Node[] = [];
  let restored: PgCluster | undefined;
  let load: Load | undefined;
  try {
    log(`== 1. PostgreSQL of its own (port ${PORT}, ${dir}), Redis through a proxy, the previous release ${PREVIOUS}`);
    await cluster.create();
    await redis.up();
    await database.up();
    execFileSync('git', ['worktree', 'add', '--detach', previous, PREVIOUS], { cwd: ROOT, stdio: 'ignore' });
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: previous, env: { ...process.env, PATH: machinePath(), npm_config_loglevel: 'error' }, stdio: 'ignore' });
    const url = cluster.url();
    const key = prepareDonor(url, previous);
    const base = join(dir, 'base');
    cluster.baseBackup(base);
    const env = {
      DATABASE_URL: `postgres://postgres@127.0.0.1:${database.port}/almoner`,
      DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
      DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
      // The drill's one donor sends 40 requests a second: its availability is measured, not its limit.
      RATE_LIMIT_PER_MINUTE: '1000000',
      PORT: '0',
      REDIS_URL: `redis://127.0.0.1:${redis.port}`,
      REDIS_PREFIX: `almoner:drill:${Date.now()}:`,
      SHUTDOWN_GRACE_MS: '1000',
      REDIS_RETRY_MS: '1000',
      // One listener per node here: its /metrics (behind an operator token) is read below.
      METRICS_ON_PUBLIC_PORT: 'true',
    };

    log(`== 2. two nodes of the previous release, ${RATE} requests/s`);
    for (let i = 0; i < 2; i++) nodes.push(await startNode(env, previous));
    load = new Load(key);
    for (const n of nodes) load.add(n.base);
    load.start();
    const t0 = Date.now();
    await sleep(5000);
    const steady = report('steady', load.between(t0, Date.now()));

    log('== 3. rolling upgrade to this release under the write load, node by node');
    const t1 = Date.now();
    for (let i = 0; i < nodes.length; i++) {
      const old = nodes[i] as Node;
      const fresh = await startNode(env); // this release: migrates (expand only), then serves beside the old one
      load.add(fresh.base);
      await sleep(500);
      await old.stop(); // drains: readyz 503 for SHUTDOWN_GRACE_MS, then in-flight requests finish
      load.remove(old.base);
      nodes[i] = fresh;
      await sleep(1000);
    }
    const upgrade = report('upgrade', load.between(t1, Date.now()));
    await check(url, 'the upgrade');
    await sleep(1000);
    const target = new Date(Number((await query(url, 'select (extract(epoch from clock_timestamp()) * 1000)::bigint as ms'))[0]?.ms));
    await sleep(1000);

    log('== 4. Redis cut for 5 s under the same load');
    const t2 = Date.now();
    await redis.cut();
    await sleep(5000);
    await redis.up();
    await sleep(3000);
    const outage = report('Redis cut', load.between(t2, t2 + 5000));
    report('after the Redis cut', load.between(t2 + 5000, Date.now()));
    // Beside the public (METRICS_ON_PUBLIC_PORT), /metrics needs an operator token.
    const scraper = /(alm_admin_[A-Za-z0-9]+)/.exec(await almonerAsync(['admin', 'token', 'create', '--name', 'drill metrics'], { DATABASE_URL: url }))?.[1] ?? '';
    for (const n of nodes) {
      const metrics = await fetch(`${n.base}/metrics`, { headers: { authorization: `Bearer ${scraper}` } });
      const shared = /^almoner_rate_limit_shared (\d)/m.exec(await metrics.text())?.[1];
      log(`   ${n.base}: rate limits ${shared === '1' ? 'shared again through Redis' : 'still counted alone'}`);
    }
    await check(url, 'the Redis outage');

    log(`== 5. PostgreSQL a black hole for ${BLACKHOLE_MS / 1000} s under the same load (nothing passes, nothing is closed)`);
    const t3 = Date.now();
    database.blackhole();
    await sleep(BLACKHOLE_MS);
    database.restore();
    const back = Date.now();
    // Connections that went into the hole stay dead: each is given up at its deadline and replaced.
    // Recovered: from the last failed request begun after the restore, nothing failed for 5 s (a
    // request is counted when it ends, so the figures of a step are read once it is 5 s behind).
    let recoveredAt = back;
    for (const started = Date.now(); Date.now() - started < 60_000;) {
      await sleep(500);
      const lastError = load.samples.filter((x) => x.at >= back && !x.ok).reduce((m, x) => Math.max(m, x.at + x.ms), back);
      recoveredAt = lastError;
      if (Date.now() - lastError > Math.max(5_000, CLIENT_TIMEOUT_MS)) break;
    }
    const hole = report('black hole', load.between(t3, back));
    report('recovering', load.between(back, recoveredAt));
    const recovered = report('after recovery', load.between(recoveredAt, Date.now()));
    log(`   recovered ${((recoveredAt - back) / 1000).toFixed(1)} s after PostgreSQL answered again`);
    if (hole.unanswered > 0 || recovered.errors > 0 || recoveredAt - back > 30_000) {
      log('   FAILED: a request hung in the black hole, or the nodes did not recover');
      process.exitCode = 1;
    }
    await check(url, 'the black hole');

    await load.stop();
    for (const n of nodes) await n.stop();
    nodes.length = 0;
    await query(cluster.url('postgres'), 'select pg_switch_wal()');
    await sleep(1500);
    cluster.stop();

    log(`== 6. point-in-time restore to ${target.toISOString()} (after the upgrade, before the outage)`);
    const done = await restore(cluster, base, PORT + 1, target);
    restored = done.restored;
    const ids = new Set((await query(restored.url(), 'select id from donations')).map((r) => Number(r.id)));
    const made = load.samples.filter((s) => s.id !== undefined) as Array<Sample & { id: number }>;
    const acknowledgedBefore = made.filter((s) => s.at + s.ms < target.getTime());
    const missing = acknowledgedBefore.filter((s) => !ids.has(s.id));
    const keptAfter = made.filter((s) => s.at > target.getTime() && ids.has(s.id));
    log(`   ${acknowledgedBefore.length} donations acknowledged before T, ${missing.length} missing; ${keptAfter.length} begun after T kept; replay took ${done.ms} ms`);
    await check(restored.url(), 'the restore');
    const total = load.between(0, Number.MAX_SAFE_INTEGER);
    // Errors are allowed only for requests in flight while the database was a black hole, and in the recovery after it.
    const outsideErrors = load.samples.filter((x) => !x.ok && (x.at + x.ms < t3 || x.at >= recoveredAt));
    const outside = outsideErrors.length;
    for (const x of outsideErrors.slice(0, 10)) log(`   error outside the hole: status ${x.status}, begun ${((x.at - t3) / 1000).toFixed(1)} s from the hole, ${x.ms} ms`);
    log('');
    log('step                     requests  errors  unanswered  p50 ms  p99 ms');
    for (const [name, st] of steps)
      log(
        `${name.padEnd(24)} ${String(st.requests).padStart(8)} ${String(st.errors).padStart(7)} ${String(st.unanswered).padStart(11)} ${String(st.p50).padStart(7)} ${String(st.p99).padStart(7)}`,
      );
    log(
      `drill: ${total.requests} requests, ${outside} errors outside the black hole; upgrade p99 ${upgrade.p99} ms and Redis-outage p99 ${outage.p99} ms against ${steady.p99} ms steady`,
    );
    if (outside > 0 || missing.length > 0 || keptAfter.length > 0) process.exitCode = 1;
    log(process.exitCode === 1 ? 'drill: FAILED' : 'drill: passed');
  } finally {
    await load?.stop();
    for (const n of nodes) await n.stop();
    await redis.cut().catch(() => {});
    await database.cut().catch(() => {});
    restored?.stop();
    cluster.stop();
    try {
      execFileSync('git', ['worktree', 'remove', '--force', previous], { cwd: ROOT, stdio: 'ignore' });
    } catch {
      // never checked out
    }
    if (process.env.DRILL_KEEP === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
