// `npm run drill`: the operator's drill of docs/operating.md, on one machine.
//   1. A PostgreSQL cluster of its own (WAL archived, a base backup), Redis
//      (REDIS_URL, default the local one) behind a proxy the drill can cut.
//   2. Two nodes of the previous release (checked out of this repository's
//      history and installed) serving a bounded load: donations and lists,
//      through a client that sends each request to a node that reports ready.
//   3. A rolling upgrade to this release, node by node (drain, stop, start).
//   4. A Redis outage of a few seconds under the same load.
//   5. A point-in-time restore to a moment after the upgrade.
// `almoner check` after each step. It prints what it did and what it measured:
// requests lost, latency added, the recovery point.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { almoner, EIN, log, machinePath, PgCluster, query, ROOT, startNode, type Node } from './common.ts';
import { prepareDonor, restore } from './pitr.ts';
import { CuttableProxy } from './proxy.ts';

const PORT = Number(process.env.DRILL_PORT ?? 55442);
const PREVIOUS = process.env.DRILL_PREVIOUS_RELEASE ?? '983e39f';
const RATE = Number(process.env.DRILL_RATE ?? 40); // requests a second, bounded
const REDIS = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');

interface Sample {
  at: number;
  ms: number;
  ok: boolean;
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
    for (let attempt = 0; attempt < 2; attempt++) {
      const ready = [...this.#nodes].filter(([, up]) => up).map(([base]) => base);
      const base = ready[(at + attempt) % Math.max(1, ready.length)];
      if (base === undefined) break;
      try {
        const res = post
          ? await fetch(`${base}/v1/donations`, {
              method: 'POST',
              headers: { 'x-api-key': this.#key, 'content-type': 'application/json', 'idempotency-key': `drill-${at}-${Math.random()}` },
              body: JSON.stringify({ ein: EIN, amount: 10 }),
              signal: AbortSignal.timeout(5000),
            })
          : await fetch(`${base}/v1/donations?per_page=5`, { headers: { 'x-api-key': this.#key }, signal: AbortSignal.timeout(5000) });
        if (res.ok) {
          const body = post ? ((await res.json()) as { id: number }) : (await res.arrayBuffer(), undefined);
          this.samples.push({ at, ms: Date.now() - at, ok: true, ...(body === undefined ? {} : { id: body.id }) });
          return;
        }
        await res.arrayBuffer();
      } catch {
        // the node went away mid-request: the next attempt goes elsewhere
      }
    }
    this.samples.push({ at, ms: Date.now() - at, ok: false });
  }

  between(from: number, to: number): { requests: number; lost: number; p50: number; p99: number } {
    const s = this.samples.filter((x) => x.at >= from && x.at < to);
    const ms = s
      .filter((x) => x.ok)
      .map((x) => x.ms)
      .sort((a, b) => a - b);
    const pct = (p: number) => ms[Math.min(ms.length - 1, Math.floor((ms.length * p) / 100))] ?? 0;
    return { requests: s.length, lost: s.filter((x) => !x.ok).length, p50: pct(50), p99: pct(99) };
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function check(url: string, step: string): void {
  const out = almoner(['check'], { DATABASE_URL: url });
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
  const nodes: Node[] = [];
  let restored: PgCluster | undefined;
  let load: Load | undefined;
  try {
    log(`== 1. PostgreSQL of its own (port ${PORT}, ${dir}), Redis through a proxy, the previous release ${PREVIOUS}`);
    await cluster.create();
    await redis.up();
    execFileSync('git', ['worktree', 'add', '--detach', previous, PREVIOUS], { cwd: ROOT, stdio: 'ignore' });
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: previous, env: { ...process.env, PATH: machinePath(), npm_config_loglevel: 'error' }, stdio: 'ignore' });
    const url = cluster.url();
    const key = prepareDonor(url, previous);
    const base = join(dir, 'base');
    cluster.baseBackup(base);
    const env = {
      DATABASE_URL: url,
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
    const steady = load.between(t0, Date.now());
    log(`   steady: ${steady.requests} requests, ${steady.lost} lost, p50 ${steady.p50} ms, p99 ${steady.p99} ms`);

    log('== 3. rolling upgrade to this release, node by node');
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
    const upgrade = load.between(t1, Date.now());
    log(`   upgrade: ${upgrade.requests} requests, ${upgrade.lost} lost, p50 ${upgrade.p50} ms, p99 ${upgrade.p99} ms`);
    check(url, 'the upgrade');
    await sleep(1000);
    const target = new Date(Number((await query(url, 'select (extract(epoch from clock_timestamp()) * 1000)::bigint as ms'))[0]?.ms));
    await sleep(1000);

    log('== 4. Redis cut for 5 s under the same load');
    const t2 = Date.now();
    await redis.cut();
    await sleep(5000);
    await redis.up();
    await sleep(3000);
    const outage = load.between(t2, t2 + 5000);
    const after = load.between(t2 + 5000, Date.now());
    log(`   during the cut: ${outage.requests} requests, ${outage.lost} lost, p50 ${outage.p50} ms, p99 ${outage.p99} ms (steady p99 ${steady.p99} ms)`);
    log(`   after it: ${after.requests} requests, ${after.lost} lost, p99 ${after.p99} ms`);
    // Beside the public (METRICS_ON_PUBLIC_PORT), /metrics needs an operator token.
    const scraper = /(alm_admin_[A-Za-z0-9]+)/.exec(almoner(['admin', 'token', 'create', '--name', 'drill metrics'], { DATABASE_URL: url }))?.[1] ?? '';
    for (const n of nodes) {
      const metrics = await fetch(`${n.base}/metrics`, { headers: { authorization: `Bearer ${scraper}` } });
      const shared = /^almoner_rate_limit_shared (\d)/m.exec(await metrics.text())?.[1];
      log(`   ${n.base}: rate limits ${shared === '1' ? 'shared again through Redis' : 'still counted alone'}`);
    }
    check(url, 'the Redis outage');

    await load.stop();
    for (const n of nodes) await n.stop();
    nodes.length = 0;
    await query(cluster.url('postgres'), 'select pg_switch_wal()');
    await sleep(1500);
    cluster.stop();

    log(`== 5. point-in-time restore to ${target.toISOString()} (after the upgrade, before the outage)`);
    const done = await restore(cluster, base, PORT + 1, target);
    restored = done.restored;
    const ids = new Set((await query(restored.url(), 'select id from donations')).map((r) => Number(r.id)));
    const made = load.samples.filter((s) => s.id !== undefined) as Array<Sample & { id: number }>;
    const acknowledgedBefore = made.filter((s) => s.at + s.ms < target.getTime());
    const missing = acknowledgedBefore.filter((s) => !ids.has(s.id));
    const keptAfter = made.filter((s) => s.at > target.getTime() && ids.has(s.id));
    log(`   ${acknowledgedBefore.length} donations acknowledged before T, ${missing.length} missing; ${keptAfter.length} begun after T kept; replay took ${done.ms} ms`);
    check(restored.url(), 'the restore');
    const total = load.between(0, Number.MAX_SAFE_INTEGER);
    log('');
    log(`drill: ${total.requests} requests, ${total.lost} lost; upgrade p99 ${upgrade.p99} ms and Redis-outage p99 ${outage.p99} ms against ${steady.p99} ms steady`);
    if (total.lost > 0 || missing.length > 0 || keptAfter.length > 0) process.exitCode = 1;
  } finally {
    await load?.stop();
    for (const n of nodes) await n.stop();
    await redis.cut().catch(() => {});
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
