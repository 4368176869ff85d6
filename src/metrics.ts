// Metrics through prom-client, one registry per platform (tests open several
// in one process): the release, the process and event loop (its default
// metrics), HTTP request durations by route and status, requests in flight,
// problems by code, database statement times and the pool, the donation
// writer's rounds and SQLite's group commits, the last run of each background
// job and of `almoner check`, and the money counts the services report
// (shared/counters.ts). Served at GET /metrics.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DatabaseHandle } from './db/database.ts';
import type { MoneyCounters } from './shared/counters.ts';
import { VERSION } from './version.ts';

/** The jobs whose last run a node reports: a job that stopped running is an alert. */
export type JobName = 'scheduler' | 'retention' | 'receipts' | 'notify' | 'sandbox clock' | 'stale checks' | 'requests' | 'ledger' | 'valuations';

/** The latest `almoner check` (kept in the database by whichever machine ran it). */
export type LastCheck = () => Promise<{ finished_at: string; duration_ms: number; failed: number } | undefined>;

/**
 * How the node's donation writer shared its transactions (donations.writer.ts WriterStats): the
 * transactions (rounds) it wrote, the requests they carried, the rounds that took the locked
 * transaction, the seconds they ran, and the requests waiting for a round now.
 */
export type Writing = () => { transactions: number; requests: number; locked: number; seconds: number; waiting: number } | undefined;

/** Money out as the database holds it (rules §17): runs open and past their pay date, unresolved exceptions, returns in the last week. */
export type MoneyOut = () => Promise<{ open_runs: number; overdue_runs: number; open_exceptions: number; returned_7d: number }>;

export interface Metrics {
  registry: Registry;
  counters: MoneyCounters;
  /** One answered HTTP request: `route` is its pattern (never the raw URL, whose ids would make a series each). */
  request(method: string, route: string, status: number, seconds: number): void;
  /** Rate limits are counted through Redis by all nodes (true), or by this node alone. */
  rateLimitShared(shared: boolean): void;
  /** One request counted by this node alone, Redis being unreachable. */
  rateLimitCountedAlone(): void;
  /** One webhook delivery attempt and its outcome; one message handed to SMTP (or written) or not. */
  webhookAttempt(ok: boolean, seconds: number): void;
  mailAttempt(ok: boolean): void;
  /** A person was refused something because a setting of the operator's is missing (the log names it). */
  configurationProblem(problem: string): void;
  /** What waits, as the delivery worker last counted it: webhook deliveries and mail, pending and due now, and failed for good. */
  backlog(kind: 'webhooks' | 'mail', counts: { pending: number; due: number; failed: number }): void;
  /** A request began; `done` runs once it ended, answered or abandoned (requests in flight). */
  requestStarted(): () => void;
  /** One answer that was a problem (or an error page), by its code. */
  problem(code: string, status: number): void;
  /** One run of a background job ended, ok or not, after `seconds`. */
  jobRun(job: JobName, ok: boolean, seconds: number): void;
}

/**
 * `read` shared by the gauges a scrape collects at once: one database read while it is in flight,
 * a fresh one on the next scrape; a failed read shows as undefined (the gauges keep their values).
 */
function oneReadPerScrape<T>(read: () => Promise<T>): () => Promise<T | undefined> {
  let reading: Promise<T | undefined> | undefined;
  return () => {
    reading ??= read()
      .catch(() => undefined)
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
}

const MAIL_ATTEMPTS = { name: 'almoner_mail_attempts_total', help: 'Messages handed to SMTP (or written as .eml), by outcome.', labelNames: ['outcome'] as const };
const CONFIGURATION_PROBLEMS = {
  name: 'almoner_configuration_problems_total',
  help: "Things people could not do because a setting of the operator's is missing, by problem (the log says which setting).",
  labelNames: ['problem'] as const,
};

/** A counter whose total is kept elsewhere (`total`), read at each scrape; 0 while `total` has none. */
function countedElsewhere(registry: Registry, name: string, help: string, total: () => number | undefined): void {
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      const value = total();
      this.reset();
      if (value !== undefined) this.inc(value);
    },
  });
}

/**
 * The database's side of a node: PostgreSQL's pool; the donation writer's rounds (ADR 9, 19), whose
 * ratios are requests a round and seconds a round; SQLite's group commit (ADR 4), the transactions
 * its commits carried and the syncs.
 */
function registerDatabase(registry: Registry, handle: DatabaseHandle, writing: Writing | undefined): void {
  new Gauge({
    name: 'almoner_db_pool_connections',
    help: 'PostgreSQL pool connections by state (total, idle, waiting: requests waiting for one). SQLite has no pool.',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const pool = handle.pool;
      if (pool === undefined) return;
      this.set({ state: 'total' }, pool.totalCount);
      this.set({ state: 'idle' }, pool.idleCount);
      this.set({ state: 'waiting' }, pool.waitingCount);
    },
  });
  const written = () => writing?.();
  countedElsewhere(
    registry,
    'almoner_donation_rounds_total',
    'Transactions the donation writer wrote (rounds: a round carries the requests that arrived together).',
    () => written()?.transactions,
  );
  countedElsewhere(registry, 'almoner_donation_round_requests_total', 'Donation requests those rounds carried.', () => written()?.requests);
  countedElsewhere(
    registry,
    'almoner_donation_rounds_locked_total',
    'Rounds written as a locked transaction (on PostgreSQL, after a guarded write could not be used).',
    () => written()?.locked,
  );
  countedElsewhere(registry, 'almoner_donation_round_seconds_total', 'Time the rounds took, from their first statement until they were durable.', () => written()?.seconds);
  new Gauge({
    name: 'almoner_donation_requests_waiting',
    help: 'Donation requests waiting for the next round.',
    registers: [registry],
    collect() {
      const stats = written();
      if (stats !== undefined) this.set(stats.waiting);
    },
  });
  const sqlite = handle.sqlite?.stats;
  if (sqlite !== undefined) {
    countedElsewhere(registry, 'almoner_sqlite_commits_total', "SQLite's real commits, each carrying a group of transactions.", () => sqlite.commits);
    countedElsewhere(registry, 'almoner_sqlite_committed_transactions_total', "Transactions SQLite's commits carried.", () => sqlite.transactions);
    countedElsewhere(registry, 'almoner_sqlite_wal_syncs_total', "Syncs of SQLite's write-ahead log, each making every commit before it durable.", () => sqlite.syncs);
  }
}

export function createMetrics(handle: DatabaseHandle, lastCheck?: LastCheck, moneyOut?: MoneyOut, writing?: Writing): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'almoner_' });
  new Gauge({
    name: 'almoner_build_info',
    help: 'Always 1; its labels name the release of Almoner and of Node this node runs.',
    labelNames: ['version', 'node', 'engine'] as const,
    registers: [registry],
  }).set({ version: VERSION, node: process.versions.node, engine: handle.engine }, 1);
  const inFlight = new Gauge({ name: 'almoner_http_requests_in_flight', help: 'Requests received and not yet answered or abandoned.', registers: [registry] });
  const statements = new Histogram({
    name: 'almoner_db_statement_duration_seconds',
    help: 'Time of each database statement, by the connections that ran it (pool: transactions and writes; lookups: shared reads; reads: SQLite reader) and outcome.',
    labelNames: ['connections', 'outcome'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
    registers: [registry],
  });
  handle.observeStatements((connections, seconds, failed) => statements.observe({ connections, outcome: failed ? 'error' : 'ok' }, seconds));
  const problems = new Counter({
    name: 'almoner_http_problems_total',
    help: 'Answers that were problems (problem+json, or a web error page), by problem code and status.',
    labelNames: ['code', 'status_code'] as const,
    registers: [registry],
  });
  const jobLast = new Gauge({
    name: 'almoner_job_last_run_timestamp_seconds',
    help: "When a background job's last run on this node ended, by job and outcome (ok, failed).",
    labelNames: ['job', 'outcome'] as const,
    registers: [registry],
  });
  const jobDuration = new Gauge({
    name: 'almoner_job_last_run_duration_seconds',
    help: "How long a background job's last run on this node took.",
    labelNames: ['job'] as const,
    registers: [registry],
  });
  if (lastCheck !== undefined) {
    // Both gauges are collected at once on a scrape: they share one read of the latest run.
    const latest = oneReadPerScrape(lastCheck);
    new Gauge({
      name: 'almoner_check_last_run_timestamp_seconds',
      help: 'When the latest `almoner check` ended (on any machine); 0 if none ran.',
      registers: [registry],
      async collect() {
        const run = await latest();
        if (run !== undefined) this.set(Date.parse(run.finished_at) / 1000);
      },
    });
    new Gauge({
      name: 'almoner_check_failed_invariants',
      help: 'Invariants that did not hold in the latest `almoner check` (0: the books are sound).',
      registers: [registry],
      async collect() {
        const run = await latest();
        if (run !== undefined) this.set(run.failed);
      },
    });
  }
  if (moneyOut !== undefined) {
    // One read per scrape, shared by the gauges below.
    const read = oneReadPerScrape(moneyOut);
    new Gauge({
      name: 'almoner_payment_runs',
      help: 'Payment runs open (opened, not submitted or withdrawn) and overdue (open past their pay date), every book.',
      labelNames: ['state'] as const,
      registers: [registry],
      async collect() {
        const m = await read();
        if (m === undefined) return;
        this.set({ state: 'open' }, m.open_runs);
        this.set({ state: 'overdue' }, m.overdue_runs);
      },
    });
    new Gauge({
      name: 'almoner_payment_exceptions_open',
      help: 'Checks the bank paid after they were voided, not yet resolved (recovered or charged).',
      registers: [registry],
      async collect() {
        const m = await read();
        if (m !== undefined) this.set(m.open_exceptions);
      },
    });
    new Gauge({
      name: 'almoner_payments_returned_week',
      help: 'ACH payments the bank returned in the last seven days.',
      registers: [registry],
      async collect() {
        const m = await read();
        if (m !== undefined) this.set(m.returned_7d);
      },
    });
  }
  const requests = new Histogram({
    name: 'almoner_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, route and status.',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  registerDatabase(registry, handle, writing);
  const donations = new Counter({ name: 'almoner_donations_created_total', help: 'Donations created, by book.', labelNames: ['book'] as const, registers: [registry] });
  const donationCents = new Counter({
    name: 'almoner_donations_created_cents_total',
    help: 'Money of the donations created, in cents, by book.',
    labelNames: ['book'] as const,
    registers: [registry],
  });
  const contributions = new Counter({
    name: 'almoner_contributions_total',
    help: 'Contributions recorded in or moved to a status, by book and status.',
    labelNames: ['book', 'status'] as const,
    registers: [registry],
  });
  const contributionCents = new Counter({
    name: 'almoner_contributions_cents_total',
    help: 'Money of those contributions, in cents, by book and status.',
    labelNames: ['book', 'status'] as const,
    registers: [registry],
  });
  const unseen = new Counter({
    name: 'almoner_payee_changes_unseen_total',
    help: "Bank details changed by an organisation's only claimant, whom no one else of it could be told of (rules §18).",
    registers: [registry],
  });
  const shared = new Gauge({
    name: 'almoner_rate_limit_shared',
    help: '1 while rate limits are counted through Redis by all nodes; 0 while this node counts alone.',
    registers: [registry],
  });
  const alone = new Counter({
    name: 'almoner_rate_limit_counted_alone_total',
    help: 'Requests this node counted alone because Redis could not be reached.',
    registers: [registry],
  });
  const attempts = new Histogram({
    name: 'almoner_webhook_attempt_duration_seconds',
    help: 'Webhook delivery attempts by outcome (ok: a 2xx in time), with how long each took.',
    labelNames: ['outcome'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15],
    registers: [registry],
  });
  const mail = new Counter({ ...MAIL_ATTEMPTS, registers: [registry] });
  const configuration = new Counter({ ...CONFIGURATION_PROBLEMS, registers: [registry] });
  const backlog = new Gauge({
    name: 'almoner_notify_backlog',
    help: 'Webhook deliveries and mail waiting (pending), due now, and failed for good, as the delivery worker last counted them.',
    labelNames: ['kind', 'state'] as const,
    registers: [registry],
  });
  return {
    registry,
    requestStarted: () => {
      inFlight.inc();
      let done = false;
      return () => {
        if (done) return;
        done = true;
        inFlight.dec();
      };
    },
    problem: (code, status) => problems.inc({ code, status_code: String(status) }),
    jobRun: (job, ok, seconds) => {
      jobLast.set({ job, outcome: ok ? 'ok' : 'failed' }, Date.now() / 1000);
      jobDuration.set({ job }, seconds);
    },
    webhookAttempt: (ok, seconds) => attempts.observe({ outcome: ok ? 'ok' : 'failed' }, seconds),
    mailAttempt: (ok) => mail.inc({ outcome: ok ? 'ok' : 'failed' }),
    configurationProblem: (problem) => configuration.inc({ problem }),
    backlog: (kind, counts) => {
      for (const state of ['pending', 'due', 'failed'] as const) backlog.set({ kind, state }, counts[state]);
    },
    rateLimitShared: (on) => shared.set(on ? 1 : 0),
    rateLimitCountedAlone: () => alone.inc(),
    counters: {
      donationCreated(book, cents) {
        donations.inc({ book });
        donationCents.inc({ book }, cents);
      },
      contribution(book, status, cents) {
        contributions.inc({ book, status });
        contributionCents.inc({ book, status }, cents);
      },
      payeeChangedUnseen: () => unseen.inc(),
    },
    request(method, route, status, seconds) {
      requests.observe({ method, route, status_code: String(status) }, seconds);
    },
  };
}
