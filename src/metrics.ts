// Metrics through prom-client, one registry per platform (tests open several
// in one process): the process and event loop (its default metrics), HTTP
// request durations by route and status, the database pool, and the money
// counts the services report (shared/counters.ts). Served at GET /metrics.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DatabaseHandle } from './db/database.ts';
import type { MoneyCounters } from './shared/counters.ts';

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
  /** What waits, as the delivery worker last counted it: webhook deliveries and mail, pending and due now, and failed for good. */
  backlog(kind: 'webhooks' | 'mail', counts: { pending: number; due: number; failed: number }): void;
}

export function createMetrics(handle: DatabaseHandle): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'almoner_' });
  const requests = new Histogram({
    name: 'almoner_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, route and status.',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
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
  const mail = new Counter({
    name: 'almoner_mail_attempts_total',
    help: 'Messages handed to SMTP (or written as .eml), by outcome.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const backlog = new Gauge({
    name: 'almoner_notify_backlog',
    help: 'Webhook deliveries and mail waiting (pending), due now, and failed for good, as the delivery worker last counted them.',
    labelNames: ['kind', 'state'] as const,
    registers: [registry],
  });
  return {
    registry,
    webhookAttempt: (ok, seconds) => attempts.observe({ outcome: ok ? 'ok' : 'failed' }, seconds),
    mailAttempt: (ok) => mail.inc({ outcome: ok ? 'ok' : 'failed' }),
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
    },
    request(method, route, status, seconds) {
      requests.observe({ method, route, status_code: String(status) }, seconds);
    },
  };
}
