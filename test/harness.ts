// The test harness: a fresh database per suite on every engine (a copy of a
// migrated SQLite file; on the PostgreSQL of TEST_DATABASE_URL a database made
// from a migrated template, test/fresh-databases.ts), the real app on it, and
// factories that go through the real services.
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import { CompiledQuery, sql, type Kysely } from 'kysely';
import { after, before, describe, test } from 'node:test';
import { Ajv } from 'ajv';
import addFormatsImport from 'ajv-formats';

const addFormats = ((addFormatsImport as unknown as { default?: unknown }).default ?? addFormatsImport) as (ajv: Ajv) => Ajv;
import { loadConfig, type Config } from '../src/config.ts';
import { freshDatabase, onFreshDatabase } from './fresh-databases.ts';
import { openPlatform, type Platform } from '../src/platform.ts';
import { buildApp } from '../src/app.ts';
import type { Deps } from '../src/deps.ts';
import type { Trx } from '../src/db/database.ts';
import type { Clock } from '../src/shared/clock.ts';
import type { Caller } from '../src/shared/caller.ts';
import { createUserWithKey, type NewUser } from '../src/modules/users/index.ts';
import { confirmAddress } from '../src/modules/accounts/index.ts';
import { dialectOf } from '../src/db/dialect.ts';
import { prepareText } from '../src/db/prepared.ts';
import { recordContribution } from '../src/modules/contributions/index.ts';
import { publicPath } from '../src/modules/nonprofits/index.ts';
import { upsert as upsertNonProfit, NO_IRS_DETAILS, type NonProfitInput } from '../src/modules/nonprofits/nonprofits.store.ts';
import { replaceZipCentroids } from '../src/modules/nonprofits/directory.store.ts';
import { formatCheck, runCheck } from '../src/modules/check/index.ts';
import type { NewDonationRow } from '../src/modules/donations/donations.store.ts';
import { createAdminToken } from '../src/modules/admin/index.ts';

export { freshDatabase, onFreshDatabase };

export interface EngineSpec {
  name: 'sqlite' | 'postgres';
}

let warned = false;
export function engines(): EngineSpec[] {
  const list: EngineSpec[] = [{ name: 'sqlite' }];
  if (process.env.TEST_DATABASE_URL) list.push({ name: 'postgres' });
  else if (!warned) {
    warned = true;
    // The skipped half counts as skipped in the summary, once per test file.
    test('the same tests on PostgreSQL', { skip: 'TEST_DATABASE_URL is not set' }, () => {});
    // (Said once by scripts/test.ts for a whole run; by each file run alone.)
    if (process.env.ALMONER_TEST_BANNER !== 'said') process.stderr.write('\n*** TEST_DATABASE_URL is not set: PostgreSQL tests are SKIPPED; only SQLite runs. ***\n\n');
  }
  return list;
}

/**
 * A suite run once per engine, each on a fresh database with the app built
 * on it (`env()` inside a test). For the tests beside a store or a service.
 */
export function describeEachEngine(title: string, body: (env: () => TestEnv) => void): void {
  for (const { name: engine } of engines()) {
    describe(`${title} (${engine})`, () => {
      let opened: TestEnv | undefined;
      before(async () => {
        opened = await openEnv(engine);
      });
      after(async () => {
        await opened?.close();
      });
      body(() => {
        if (opened === undefined) throw new Error("the suite's database is not open");
        return opened;
      });
    });
  }
}

export interface TestEnv {
  engine: EngineSpec['name'];
  platform: Platform;
  deps: Deps;
  app: FastifyInstance;
  close(): Promise<void>;
}

/** A fresh, migrated database on `engine` with the app built on it. */
export interface EnvOptions {
  clock?: Clock;
  /** Keep the database afterwards under this name (a file in test-results/, or a PostgreSQL schema), for `almoner check` in CI. */
  keepAs?: string;
}

export async function openEnv(engine: EngineSpec['name'], overrides: Partial<Config> = {}, options: EnvOptions = {}): Promise<TestEnv> {
  // A caller that names its own database (a crash test reopening the one it killed) gets that one;
  // otherwise the suite's own, a migrated copy dropped at close.
  const { databaseUrl, cleanup } =
    overrides.databaseUrl === undefined
      ? await freshDatabase(engine, { ...(options.keepAs === undefined ? {} : { keepAs: options.keepAs }), migrated: true })
      : { databaseUrl: overrides.databaseUrl, cleanup: async () => {} };
  const config = testConfig(databaseUrl, overrides);
  const platform = await openPlatform(config, { log: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }), ...(options.clock === undefined ? {} : { clock: options.clock }) });
  const app = await buildApp(platform.deps);
  await app.ready();
  return {
    engine,
    platform,
    deps: platform.deps,
    app,
    async close() {
      await app.close();
      await platform.close();
      await cleanup();
    },
  };
}

/** The configuration tests run with: fast password hashing, limits out of the way. */
export function testConfig(databaseUrl: string, overrides: Partial<Config> = {}): Config {
  return loadConfig(
    {},
    {
      databaseUrl,
      publicUrl: 'https://almoner.test',
      rateLimitPerMinute: 100_000,
      rateLimitAnonymousPerMinute: 100_000,
      passwordScryptN: 1024,
      passwordScryptP: 1,
      signUpsPerMinute: 100_000,
      // The tests scrape /metrics from the one app they build (a test of the default turns it off).
      metricsOnPublicPort: true,
      ...overrides,
    },
  );
}

export interface TestUser {
  user_id: number;
  fund_id: number;
  slug: string;
  key: string;
  caller: Caller;
}

let userSeq = 0;
export async function makeUser(deps: Deps, input: Partial<NewUser> = {}): Promise<TestUser> {
  userSeq += 1;
  const created = await createUserWithKey(deps, { name: `Donor ${userSeq}`, city: 'Burlington', ...input }, { name: 'test', mode: 'live' }, 'test:harness');
  return {
    user_id: created.user_id,
    fund_id: created.fund_id,
    slug: created.slug,
    key: created.key.key,
    caller: {
      user_id: created.user_id,
      fund_id: created.fund_id,
      actor_id: created.user_id,
      role: 'organizer',
      key_id: created.key.id,
      mode: 'live',
      book: 'live',
      user_status: 'active',
      last_used_at: null,
    },
  };
}

/** The token of the newest address-confirmation link mailed to `email` (rules §15). */
export async function confirmationTokenFor(deps: Deps, email: string): Promise<string> {
  const mail = await deps.db
    .selectFrom('mail_outbox')
    .select('text')
    .where('recipient', '=', email.toLowerCase())
    .where('kind', '=', 'address_confirmation')
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  const token = /\/account\/confirm\/([A-Za-z0-9_-]{43})/.exec(String(mail.text))?.[1];
  if (token === undefined) throw new Error(`no confirmation link in the mail to ${email}`);
  return token;
}

/** Follows the confirmation link mailed to the account's address, as its person would (rules §15). */
export async function confirmAddressOf(deps: Deps, userId: number, email: string): Promise<void> {
  await confirmAddress(deps, userId, await confirmationTokenFor(deps, email));
}

/** Follows the confirmation link mailed to `email` in a signed-in browser: opens it and presses the button (rules §15). */
export async function confirmInBrowser(
  deps: Deps,
  browser: { get(url: string): Promise<{ status: number }>; post(url: string, fields: Record<string, string>): Promise<{ status: number; location: string | undefined }> },
  email: string,
): Promise<void> {
  const link = `/account/confirm/${await confirmationTokenFor(deps, email)}`;
  const page = await browser.get(link);
  if (page.status !== 200) throw new Error(`the confirmation page answered ${page.status}`);
  const done = await browser.post(link, {});
  if (done.status !== 303) throw new Error(`confirming answered ${done.status}`);
}

/** The user and fund of the web account signed up with `email`. */
export async function accountOf(deps: Deps, email: string): Promise<{ user_id: number; fund_id: number }> {
  return deps.db
    .selectFrom('accounts as a')
    .innerJoin('funds as f', 'f.user_id', 'a.user_id')
    .select(['a.user_id', 'f.id as fund_id'])
    .where('a.email', '=', email)
    .executeTakeFirstOrThrow();
}

/** Puts `dollars` into a sandbox key's fund as an integrator would: a sandbox deposit, cleared through /v1/sandbox/advance. */
export async function fundSandbox(app: FastifyInstance, testKey: string, dollars: number): Promise<void> {
  const deposit = await call(app, 'POST', '/v1/sandbox/deposits', { key: testKey, body: { amount: dollars } });
  const cleared = await call(app, 'POST', '/v1/sandbox/advance', { key: testKey, body: { object: 'contribution', id: deposit.body.contribution_id, to: 'success' } });
  if (deposit.status !== 201 || cleared.status !== 200) throw new Error(`sandbox funding failed: ${deposit.status} ${cleared.status}`);
}

/** Puts `cents` into the user's available balance through a cleared contribution. */
export async function fund(deps: Deps, user: { user_id: number; fund_id: number }, cents: number): Promise<void> {
  await recordContribution(deps, {
    user_id: user.user_id,
    fund_id: user.fund_id,
    type: 'wire_payment',
    units: `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')}`,
    valuation: '1',
    currency: 'USD',
    frequency: 'OneTime',
    status: 'success',
  });
}

/** Keeps these ZIP codes' centres, as an import of the IRS files with its ZIP file does (replacing the ones kept before). */
export async function makeZipCentres(deps: Deps, zips: ReadonlyArray<readonly [zip: string, latitude: number, longitude: number]>): Promise<void> {
  await deps.db.transaction().execute((trx) => replaceZipCentroids(trx, zips));
}

/**
 * A donation's row as donations.store.ts inserts it (for the stores' own tests): scheduled, $10,
 * public, on 2026-01-01, to the first non-profit of the directory; `overrides` change any of it.
 */
export async function donationRow(deps: Deps, u: { user_id: number; fund_id: number }, overrides: Partial<NewDonationRow> = {}): Promise<NewDonationRow> {
  const np = await deps.db.selectFrom('non_profits').select('id').orderBy('id').executeTakeFirstOrThrow();
  return {
    book: 'live',
    user_id: u.user_id,
    fund_id: u.fund_id,
    non_profit_id: np.id,
    amount_cents: 1_000,
    status: 'scheduled',
    note: null,
    private_memo: null,
    visibility: 'public',
    scheduled_donation_id: null,
    app_connection_id: null,
    created_at: '2026-01-01T00:00:00Z',
    ...overrides,
  };
}

export async function makeNonProfit(deps: Deps, input: Partial<NonProfitInput> & { ein: string; name: string }): Promise<void> {
  const city = input.city ?? 'Burlington';
  const state = input.state ?? 'VT';
  await upsertNonProfit(
    deps.db,
    {
      ...NO_IRS_DETAILS,
      name_lower: input.name.toLowerCase(),
      website: null,
      city,
      state,
      zip: '05401',
      latitude: 44.47,
      longitude: -73.21,
      ntee_code: 'B20',
      cause_id: 2,
      eligible: 1,
      slug: publicPath(input.ein, input.name, city, state),
      income_amt: 0,
      asset_amt: 0,
      tax_period: '202401',
      ...input,
    },
    new Date().toISOString(),
  );
}

/**
 * Tables a refused request may change by design, each with why: every other table of the schema
 * (the privacy registry names them all, and its test holds it to the schema) is in the fingerprint.
 */
export const FINGERPRINT_SKIPS: Readonly<Record<string, string>> = {
  sign_in_failures: 'a refused sign-in is counted, by design (the throttle)',
  oidc_artifacts: "the login provider's own sessions and interactions, made by browsing",
  oidc_keys: "the login provider's signing keys, made on first use",
  check_runs: 'almoner check records each of its runs',
};

/**
 * The rows compared, not only counted: `*` is every column but those a request's authentication
 * touches (`last_used_at`); a list, the columns a refused request must leave as they were. The
 * money the newer paths move and who may move it (payment runs, units and exchanges, valuations
 * and fees, apps' spending, invitations) is compared whole.
 */
const FINGERPRINT_ROWS: Readonly<Record<string, '*' | readonly string[]>> = {
  ledger_accounts: ['id', 'balance_cents'],
  fund_members: ['id', 'status', 'role'],
  users: ['id', 'current_fund_id', 'status', 'name', 'slug', 'visible', 'avatar_url'],
  donations: ['id', 'status'],
  gifts: ['id', 'status', 'seen'],
  contributions: ['id', 'status'],
  webhook_endpoints: ['id', 'url', 'description', 'event_types', 'disabled', 'secret', 'deleted_at'],
  api_keys: ['id', 'revoked_at'],
  payment_runs: '*',
  payments: '*',
  payment_grants: '*',
  payee_accounts: '*',
  fund_allocations: '*',
  fund_units: '*',
  exchanges: '*',
  investments: '*',
  fund_valuations: '*',
  monthly_fees: '*',
  app_spending: '*',
  app_connections: '*',
  invitations: '*',
  charity_claims: '*',
  address_confirmations: '*',
};

/** Every table the engine holds in the platform's schema, read from the engine itself (not from a list kept by hand). */
export async function tablesOf(deps: Deps): Promise<string[]> {
  return [...(await columnsOf(deps)).keys()];
}

/**
 * What changes whenever a table or a column is added, dropped or renamed: SQLite's own schema
 * counter; on PostgreSQL the count and a checksum of the schema's table.column names (one row,
 * where the catalogue itself is some 650 rows to send and read on every fingerprint).
 */
async function schemaVersion(deps: Deps): Promise<string> {
  const query =
    dialectOf(deps.db).engine === 'sqlite'
      ? sql<{ v: string }>`select cast(schema_version as text) as v from pragma_schema_version`
      : sql<{ v: string }>`select count(*)::text || ' ' || coalesce(sum(hashtext(c.relname || '.' || a.attname)::bigint), 0)::text as v
          from pg_class c join pg_attribute a on a.attrelid = c.oid
          where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p') and a.attnum > 0 and not a.attisdropped`;
  prepareText(query.compile(deps.db).sql);
  return (await query.execute(deps.db)).rows[0]?.v ?? '';
}

/** Each database's catalogue as last read, and the schema version it was read at. */
const catalogues = new WeakMap<object, { version: string; tables: ReadonlyMap<string, readonly string[]> }>();

/** Each table of the schema with its columns, in order, read from the engine's catalogue (again only once the schema has changed). */
async function columnsOf(deps: Deps): Promise<ReadonlyMap<string, readonly string[]>> {
  const version = await schemaVersion(deps);
  const known = catalogues.get(deps.db);
  if (known?.version === version) return known.tables;
  const query =
    dialectOf(deps.db).engine === 'sqlite'
      ? sql<{ t: string; c: string }>`select m.name as t, p.name as c from sqlite_master m join pragma_table_info(m.name) p
          where m.type = 'table' and m.name not like 'sqlite_%' order by m.name, p.cid`
      : sql<{ t: string; c: string }>`select c.relname as t, a.attname as c from pg_class c
          join pg_namespace n on n.oid = c.relnamespace join pg_attribute a on a.attrelid = c.oid
          where n.nspname = current_schema() and c.relkind in ('r', 'p') and a.attnum > 0 and not a.attisdropped
          order by c.relname, a.attnum`;
  prepareText(query.compile(deps.db).sql);
  const tables = new Map<string, string[]>();
  for (const { t, c } of (await query.execute(deps.db)).rows) tables.set(t, [...(tables.get(t) ?? []), c]);
  catalogues.set(deps.db, { version, tables });
  return tables;
}

/**
 * Everything a refused request must leave as it was: every table's count (but the explicit skips:
 * a table made tomorrow is covered the day it is made), and the rows and balances that carry money.
 * Two round trips whatever the schema's size: the catalogue, then one statement for all of it
 * (each a named statement on PostgreSQL).
 */
export async function fingerprint(deps: Deps): Promise<Record<string, unknown>> {
  const sqlite = dialectOf(deps.db).engine === 'sqlite';
  const ident = (name: string): string => `"${name.replaceAll('"', '""')}"`;
  const text = (column: string): string => (sqlite ? `quote(${ident(column)})` : `quote_nullable(${ident(column)})`);
  const tables = [...(await columnsOf(deps))].filter(([t]) => FINGERPRINT_SKIPS[t] === undefined);
  const parts: string[] = [];
  for (const [table, columns] of tables) {
    parts.push(`select 'n' as k, '${table}' as t, cast(count(*) as text) as v from ${ident(table)}`);
    const wanted = FINGERPRINT_ROWS[table];
    if (wanted === undefined) continue;
    const compared = wanted === '*' ? columns.filter((c) => c !== 'last_used_at') : wanted;
    parts.push(`select 'r', '${table}', ${compared.map(text).join(` || '|' || `)} from ${ident(table)}`);
  }
  const out: Record<string, unknown> = {};
  const rows: Record<string, string[]> = {};
  // SQLite allows 500 terms in a compound select; a statement per 400 keeps far from it.
  for (let i = 0; i < parts.length; i += 400) {
    const union = parts.slice(i, i + 400).join('\nunion all\n');
    // The same text until the schema changes: on PostgreSQL a named statement, planned once per
    // connection (planning a union of a hundred tables took 20-25 ms of a fingerprint's 25-30).
    prepareText(union);
    const statement = sql.raw(union);
    for (const { k, t, v } of (await sql<{ k: string; t: string; v: string }>`${statement}`.execute(deps.db)).rows) {
      if (k === 'n') out[t] = Number(v);
      else (rows[t] ??= []).push(v);
    }
  }
  for (const table of Object.keys(FINGERPRINT_ROWS)) {
    assert.ok(
      tables.some(([t]) => t === table),
      `the fingerprint compares the rows of ${table}, which is no table`,
    );
    out[`${table}_rows`] = (rows[table] ?? []).sort();
  }
  return out;
}

/** Every invariant of `almoner check` holds (`step`: what the failure says came just before). */
export async function assertLedgerBalanced(deps: Deps, step?: string): Promise<void> {
  const { ok, text } = formatCheck(await runCheck(deps));
  if (!ok) throw new Error(step === undefined ? text : `almoner check after ${step}:\n${text}`);
}

/**
 * Runs `fn` with the database's foreign keys off (and on PostgreSQL its triggers, migration 025),
 * as only a corrupting hand or a restore could.
 */
export async function withoutForeignKeys(env: TestEnv, fn: (db: TestEnv['deps']['db']) => Promise<unknown>): Promise<void> {
  if (env.engine === 'sqlite') {
    await sql`pragma foreign_keys = off`.execute(env.deps.db);
    try {
      await fn(env.deps.db);
    } finally {
      await sql`pragma foreign_keys = on`.execute(env.deps.db);
    }
    return;
  }
  await env.deps.db.connection().execute(async (conn) => {
    await sql`set session_replication_role = replica`.execute(conn);
    try {
      await fn(conn);
    } finally {
      await sql`set session_replication_role = origin`.execute(conn);
    }
  });
}

/**
 * Waits until `ready` holds, asking every few milliseconds, for at most `timeoutMs`: a bounded wait
 * for something another task does, instead of a fixed sleep. Fails naming `what` if it never holds.
 */
export async function until(what: string, ready: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let every = 2; !(await ready()); every = Math.min(every * 2, 50)) {
    if (Date.now() > deadline) assert.fail(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, every));
  }
}

/**
 * PostgreSQL: resolves once every transaction of the cluster begun before the call has ended, in
 * any database (the ledger's log takes an entry only once no older transaction runs, rules §26;
 * other test files' transactions count too). SQLite: at once.
 */
export async function olderTransactionsEnded(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).engine !== 'postgres') return;
  const next = (await sql<{ next: string }>`select pg_snapshot_xmax(pg_current_snapshot())::text as next`.execute(db)).rows[0]?.next;
  await until(
    'the transactions begun before to end',
    async () => (await sql<{ ended: boolean }>`select pg_snapshot_xmin(pg_current_snapshot()) >= ${next}::xid8 as ended`.execute(db)).rows[0]?.ended === true,
  );
}

/** PostgreSQL: how many sessions of this database wait for a lock now. */
export async function lockWaiters(db: Deps['db']): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(db);
  return rows[0]?.n ?? 0;
}

/**
 * PostgreSQL: runs `first` in a transaction of `db` held open, then starts `second` (on another
 * connection) and reports whether it waited for a lock (seen in pg_stat_activity) rather than
 * finishing; the transaction then commits (whatever happened) and `second`'s outcome is returned,
 * for the caller to judge.
 */
export async function whileHeld(db: Deps['db'], first: (trx: Trx) => Promise<unknown>, second: () => Promise<unknown>): Promise<{ waited: boolean; outcome: Promise<unknown> }> {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let begun = () => {};
  const ready = new Promise<void>((resolve) => {
    begun = resolve;
  });
  const holder = db.transaction().execute(async (trx) => {
    await first(trx);
    begun();
    await held;
  });
  await Promise.race([ready, holder]);
  let settled = false;
  const outcome = second().finally(() => {
    settled = true;
  });
  outcome.catch(() => {}); // judged by the caller, after the commit
  let waited = false;
  await until('the second to finish or to wait for a lock', async () => settled || (waited = (await lockWaiters(db)) > 0));
  release();
  await holder;
  return { waited, outcome };
}

export interface Call {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: any;
}

/** An in-process request; `body` as an object is sent as JSON, as a string verbatim. */
export async function call(app: FastifyInstance, method: string, url: string, options: { key?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Call> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers['x-api-key'] = options.key;
  let payload: string | undefined;
  if (options.body !== undefined) {
    payload = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await app.inject({ method: method as 'GET', url, headers, ...(payload === undefined ? {} : { payload }) });
  let body: unknown = res.body;
  const type = String(res.headers['content-type'] ?? '');
  if (type.includes('json') && res.body !== '') body = JSON.parse(res.body);
  return { status: res.statusCode, headers: res.headers, body };
}

/** Checks a response body against one of the app's shared response schemas (the ones OpenAPI publishes). */
export function assertSchema(app: FastifyInstance, name: string, body: unknown): void {
  let ajv = validators.get(app);
  if (ajv === undefined) {
    ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    for (const schema of Object.values(app.getSchemas())) ajv.addSchema(schema as object);
    validators.set(app, ajv);
  }
  const valid = ajv.validate({ $ref: name }, body);
  if (!valid) throw new Error(`response does not match ${name}: ${ajv.errorsText(ajv.errors)}\n${JSON.stringify(body)}`);
}
const validators = new WeakMap<FastifyInstance, Ajv>();

/** A clock tests move by hand. */
export class TestClock implements Clock {
  #now: Date;
  constructor(iso: string) {
    this.#now = new Date(iso);
  }
  now(): Date {
    return new Date(this.#now);
  }
  set(iso: string): void {
    this.#now = new Date(iso);
  }
  advance(ms: number): void {
    this.#now = new Date(this.#now.getTime() + ms);
  }
}

/**
 * The journal entries after `afterEntryId`, one posting a line, with fund
 * accounts named by their owner's slug: what a story asserts after each step.
 */
export async function journalSince(deps: Deps, afterEntryId: number): Promise<{ text: string; last: number }> {
  const rows = await deps.db
    .selectFrom('postings as p')
    .innerJoin('journal_entries as j', 'j.id', 'p.entry_id')
    .innerJoin('ledger_accounts as a', 'a.id', 'p.account_id')
    .leftJoin('funds as f', 'f.id', 'a.fund_id')
    .leftJoin('users as u', 'u.id', 'f.user_id')
    .select(['j.id as entry_id', 'j.memo', 'a.kind', 'u.slug', 'p.amount_cents'])
    .where('j.id', '>', afterEntryId)
    .orderBy('j.id')
    .orderBy('p.id')
    .execute();
  const lines = rows.map((r) => {
    const account = r.slug === null ? r.kind : `${r.slug}.${r.kind}`;
    const amount = (r.amount_cents / 100).toFixed(2);
    return `${account.padEnd(24)} ${amount.padStart(10)}  ${r.memo}`;
  });
  const last = rows.length === 0 ? afterEntryId : Number(rows[rows.length - 1]?.entry_id);
  return { text: lines.join('\n'), last };
}

/** A user's four balance figures as one readable line. */
export async function balancesOf(deps: Deps, fundId: number): Promise<string> {
  const rows = await deps.db.selectFrom('ledger_accounts').select(['kind', 'balance_cents']).where('fund_id', '=', fundId).execute();
  const b = Object.fromEntries(rows.map((r) => [r.kind, (r.balance_cents / 100).toFixed(2)]));
  return `pending_deposit ${b.pending_deposit} | available ${b.available} | reserved ${b.reserved} | portfolio ${b.portfolio}`;
}

export const BIN = new URL('../bin/almoner.js', import.meta.url).pathname;

/** Runs `almoner ...args` in a process of its own on `databaseUrl`, as an operator would. */
export async function runCli(args: string[], databaseUrl: string, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args], { env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/**
 * `almoner serve` in a process of its own on `databaseUrl` (port 0, background jobs off), resolved
 * once it listens: its base URL, the process, and its exit code when it ends.
 */
export async function startServerProcess(databaseUrl: string, env: Record<string, string> = {}): Promise<{ server: ChildProcess; base: string; exited: Promise<number | null> }> {
  const server = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: '0', SCHEDULER_INTERVAL_MS: '0', SANDBOX_TICK_MS: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const exited = new Promise<number | null>((resolve) => server.on('exit', resolve));
  const base = await new Promise<string>((resolve, reject) => {
    let out = '';
    let listening = false;
    server.stdout?.on('data', (c: Buffer) => {
      // Read until it listens; after that its output is drained unread (a node logging every
      // request would otherwise make each chunk rescan all it ever wrote).
      if (listening) return;
      out += c.toString();
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        listening = true;
        out = '';
        resolve(m[1] as string);
      }
    });
    void exited.then((code) => reject(new Error(`server exited before listening (${code})`)));
  });
  return { server, base, exited };
}

export { CuttableProxy } from '../scripts/drill/proxy.ts';

const operatorTokens = new WeakMap<Deps, Promise<string>>();

/** GET /metrics as Prometheus would scrape it beside the public: with an operator token (made once per platform). */
export async function scrapeMetrics(app: FastifyInstance, deps: Deps): Promise<{ statusCode: number; headers: Record<string, unknown>; body: string }> {
  let token = operatorTokens.get(deps);
  if (token === undefined) {
    token = createAdminToken(deps, 'metrics scraper', 'test').then((t) => t.token);
    operatorTokens.set(deps, token);
  }
  return app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${await token}` } });
}

/** An originator's ACH settings for tests of payment runs (ACH_* in production). */
export const TEST_ACH = {
  destinationRouting: '091000019',
  destinationName: 'First Bank of Vermont',
  originId: '1234567890',
  originName: 'Almoner Giving Fund',
  companyId: '1234567890',
  companyName: 'Almoner Giving',
  odfiRouting: '011000015',
};

/**
 * The plan the engine makes for a compiled query: SQLite's `explain query plan` details, or
 * PostgreSQL's `explain` with sequential scans off (a test's tables are small enough that a scan
 * would win; the question is whether an index can serve).
 */
export async function queryPlan(db: Deps['db'], query: CompiledQuery): Promise<string[]> {
  if (dialectOf(db).engine === 'sqlite') {
    return (await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]))).rows.map((r) => r.detail);
  }
  return await db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    const rows = await trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]));
    return rows.rows.map((r) => r['QUERY PLAN']);
  });
}

/**
 * `open` tried up to five times while it fails for a PostgreSQL connection that was slow to be made
 * (a test's tight DB_CONNECT_TIMEOUT_MS also bounds making one, which a loaded machine can exceed);
 * any other failure at once.
 */
export async function slowConnectsRetried<T>(open: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await open();
    } catch (error) {
      const slow = /connection timeout/.test(String((error as Error).message));
      if (!slow || attempt === 5) throw error;
    }
  }
}

/**
 * Runs `write` in a transaction whose COMMIT fails (a deferred foreign key, checked only then)
 * and, begun right after it, `read`; resolves to what `read` gave. On SQLite the read runs
 * between the transaction's release of its savepoint and its group's COMMIT (db/sqlite-group-commit.ts),
 * so it sees the writes the database then undoes, and `deps.undone` moves by one; on PostgreSQL
 * it sees none of them, and nothing moves.
 */
export async function readAcrossUndone<T>(env: Pick<TestEnv, 'engine' | 'deps'>, write: (trx: Trx) => Promise<unknown>, read: () => Promise<T>): Promise<T> {
  const { db, undone } = env.deps;
  await sql`create table undone_probe (id integer primary key, user_id integer references users (id) deferrable initially deferred)`.execute(db);
  try {
    const before = undone();
    const failing = db.transaction().execute(async (trx) => {
      await write(trx);
      await sql`insert into undone_probe (id, user_id) values (1, ${999_999_999})`.execute(trx);
    });
    const seen = read();
    await assert.rejects(failing, /foreign key/i);
    assert.equal(undone() - before, env.engine === 'sqlite' ? 1 : 0, 'the group was undone');
    return await seen;
  } finally {
    await sql`drop table undone_probe`.execute(db);
  }
}
