// Migrations run at start, in order, each in its own transaction, recorded in
// `schema_migrations`. The runner is ours (not Kysely's Migrator) because each
// migration needs to know the engine to pick its column types.
import { sql, type Kysely } from 'kysely';
import type { DatabaseHandle } from './database.ts';
import * as m001 from './migrations/001_initial.ts';
import * as m002 from './migrations/002_donation_counts.ts';
import * as m003 from './migrations/003_auth_epoch.ts';
import * as m004 from './migrations/004_operations.ts';
import * as m005 from './migrations/005_sandbox.ts';
import * as m006 from './migrations/006_directory.ts';
import * as m007 from './migrations/007_directory_top.ts';
import * as m008 from './migrations/008_accounts.ts';
import * as m009 from './migrations/009_idempotency_outcome.ts';
import * as m010 from './migrations/010_non_profit_cards.ts';
import * as m011 from './migrations/011_word_size.ts';
import * as m012 from './migrations/012_expect.ts';
import * as m013 from './migrations/013_books.ts';
import * as m014 from './migrations/014_operator_tokens.ts';
import * as m015 from './migrations/015_invitations.ts';
import * as m016 from './migrations/016_contribution_declarations.ts';
import * as m017 from './migrations/017_receipts.ts';
import * as m018 from './migrations/018_receipt_chain.ts';
import * as m019 from './migrations/019_notifications.ts';
import * as m020 from './migrations/020_directory_profile.ts';
import * as m021 from './migrations/021_apps.ts';
import * as m022 from './migrations/022_app_deletion.ts';
import * as m023 from './migrations/023_hot_path_references.ts';
import * as m024 from './migrations/024_partial_donation_indexes.ts';
import * as m025 from './migrations/025_postings_books_per_statement.ts';
import * as m026 from './migrations/026_app_spending.ts';
import * as m027 from './migrations/027_check_runs.ts';
import * as m028 from './migrations/028_due_diligence.ts';
import * as m029 from './migrations/029_payments.ts';
import * as m030 from './migrations/030_donor_choices.ts';
import * as m031 from './migrations/031_charity_claims.ts';
import * as m032 from './migrations/032_portfolios.ts';
import * as m033 from './migrations/033_shared_funds.ts';
import * as m034 from './migrations/034_gifts_by_address.ts';
import * as m035 from './migrations/035_endpoint_makers.ts';
import * as m036 from './migrations/036_confirmed_addresses.ts';
import * as m037 from './migrations/037_operator_people.ts';
import * as m038 from './migrations/038_payment_exceptions.ts';
import * as m039 from './migrations/039_money_out_controls.ts';
import * as m040 from './migrations/040_runs_by_date.ts';
import * as m041 from './migrations/041_declared_value.ts';
import * as m042 from './migrations/042_platform_settings.ts';
import * as m043 from './migrations/043_invest_now.ts';
import * as m044 from './migrations/044_partner_fields.ts';
import * as m045 from './migrations/045_gift_partner_fields.ts';
import * as m046 from './migrations/046_schedule_partner_fields.ts';
import * as m047 from './migrations/047_contribution_partner_fields.ts';
import * as m048 from './migrations/048_fundraisers.ts';
import * as m049 from './migrations/049_matches.ts';
import * as m050 from './migrations/050_grant_tracking.ts';
import * as m051 from './migrations/051_schedule_fundraiser.ts';
import * as m052 from './migrations/052_app_webhooks.ts';
import * as m053 from './migrations/053_schedule_app.ts';
import * as m054 from './migrations/054_ledger_log.ts';
import * as m055 from './migrations/055_checkpoint_ranges.ts';
import * as m056 from './migrations/056_valuation_rounds.ts';
import * as m057 from './migrations/057_room_to_update.ts';
import * as m058 from './migrations/058_cause_lookups.ts';
import * as m059 from './migrations/059_entry_keys_once.ts';
import * as m060 from './migrations/060_ledger_places.ts';
import * as m061 from './migrations/061_waiting_hashes.ts';
import * as m062 from './migrations/062_places_written_first.ts';
import * as m063 from './migrations/063_log_by_transaction.ts';
import * as m064 from './migrations/064_donation_revisions.ts';
import * as m065 from './migrations/065_keys_led_by_key.ts';
import * as m066 from './migrations/066_key_records_user_unchecked.ts';
import * as m067 from './migrations/067_books_check_own_rows_unlocked.ts';
import * as m068 from './migrations/068_partial_request_indexes.ts';
import * as m069 from './migrations/069_donation_list_revisions.ts';
import * as m070 from './migrations/070_books_check_locks_only_others.ts';
import * as m071 from './migrations/071_keys_and_times_bytewise.ts';

/**
 * `breaksOlder`: the migration contracts the schema (ADR 13): a release that does not know it
 * must not run on a database that has it. Every other migration expands the schema only (new
 * tables, nullable columns, indexes), so the release before it keeps working during a rolling upgrade.
 */
const MIGRATIONS: ReadonlyArray<{ name: string; up: typeof m001.up; rebuildsTables?: boolean; breaksOlder?: boolean }> = [
  { name: '001_initial', up: m001.up },
  { name: '002_donation_counts', up: m002.up },
  { name: '003_auth_epoch', up: m003.up },
  { name: '004_operations', up: m004.up },
  { name: '005_sandbox', up: m005.up },
  { name: '006_directory', up: m006.up },
  { name: '007_directory_top', up: m007.up },
  { name: '008_accounts', up: m008.up },
  { name: '009_idempotency_outcome', up: m009.up },
  { name: '010_non_profit_cards', up: m010.up },
  { name: '011_word_size', up: m011.up },
  { name: '012_expect', up: m012.up },
  // Money moved between tables' books: older nodes would write rows without one.
  { name: '013_books', up: m013.up, rebuildsTables: m013.rebuildsTables, breaksOlder: true },
  { name: '014_operator_tokens', up: m014.up },
  { name: '015_invitations', up: m015.up },
  { name: '016_contribution_declarations', up: m016.up },
  { name: '017_receipts', up: m017.up },
  { name: '018_receipt_chain', up: m018.up },
  { name: '019_notifications', up: m019.up },
  { name: '020_directory_profile', up: m020.up },
  { name: '021_apps', up: m021.up },
  { name: '022_app_deletion', up: m022.up },
  { name: '023_hot_path_references', up: m023.up },
  { name: '024_partial_donation_indexes', up: m024.up },
  { name: '025_postings_books_per_statement', up: m025.up },
  { name: '026_app_spending', up: m026.up },
  { name: '027_check_runs', up: m027.up },
  { name: '028_due_diligence', up: m028.up },
  { name: '029_payments', up: m029.up },
  { name: '030_donor_choices', up: m030.up },
  { name: '031_charity_claims', up: m031.up },
  { name: '032_portfolios', up: m032.up },
  { name: '033_shared_funds', up: m033.up },
  { name: '034_gifts_by_address', up: m034.up },
  { name: '035_endpoint_makers', up: m035.up },
  { name: '036_confirmed_addresses', up: m036.up },
  { name: '037_operator_people', up: m037.up },
  { name: '038_payment_exceptions', up: m038.up },
  { name: '039_money_out_controls', up: m039.up },
  { name: '040_runs_by_date', up: m040.up },
  { name: '041_declared_value', up: m041.up },
  { name: '042_platform_settings', up: m042.up },
  { name: '043_invest_now', up: m043.up },
  { name: '044_partner_fields', up: m044.up },
  { name: '045_gift_partner_fields', up: m045.up },
  { name: '046_schedule_partner_fields', up: m046.up },
  { name: '047_contribution_partner_fields', up: m047.up },
  { name: '048_fundraisers', up: m048.up },
  { name: '049_matches', up: m049.up },
  { name: '050_grant_tracking', up: m050.up },
  { name: '051_schedule_fundraiser', up: m051.up },
  { name: '052_app_webhooks', up: m052.up },
  { name: '053_schedule_app', up: m053.up },
  { name: '054_ledger_log', up: m054.up },
  { name: '055_checkpoint_ranges', up: m055.up },
  { name: '056_valuation_rounds', up: m056.up },
  { name: '057_room_to_update', up: m057.up },
  { name: '058_cause_lookups', up: m058.up },
  { name: '059_entry_keys_once', up: m059.up },
  { name: '060_ledger_places', up: m060.up },
  { name: '061_waiting_hashes', up: m061.up },
  { name: '062_places_written_first', up: m062.up },
  { name: '063_log_by_transaction', up: m063.up },
  { name: '064_donation_revisions', up: m064.up },
  { name: '065_keys_led_by_key', up: m065.up },
  { name: '066_key_records_user_unchecked', up: m066.up },
  { name: '067_books_check_own_rows_unlocked', up: m067.up },
  { name: '068_partial_request_indexes', up: m068.up },
  { name: '069_donation_list_revisions', up: m069.up },
  { name: '070_books_check_locks_only_others', up: m070.up },
  { name: '071_keys_and_times_bytewise', up: m071.up },
];

/** The migrations this release knows, in order. */
export const MIGRATION_NAMES: readonly string[] = MIGRATIONS.map((m) => m.name);

/**
 * Applies every migration not yet applied, in order (`until`: stop after that one, for tests of a
 * migration). Returns what it applied; `warn` hears of a newer schema this release may run on.
 */
export async function migrate(
  handle: DatabaseHandle,
  options: {
    until?: string;
    warn?: (message: string) => void;
    /** Told of each migration that waited too long for a lock and is tried again. */
    retrying?: (migration: string, attempt: number, reason: string) => void;
    lockTimeoutMs?: number;
    attempts?: number;
  } = {},
): Promise<string[]> {
  const { db, engine } = handle;
  await sql`create table if not exists schema_migrations (name text primary key, applied_at text not null)`.execute(db);
  // The migrations that break older releases, so that an older release can tell (ADR 13).
  await sql`create table if not exists schema_breaks (name text primary key)`.execute(db);
  const done = await checkNewerSchema(handle, MIGRATION_NAMES, options.warn);
  const applied: string[] = [];
  const last = options.until === undefined ? MIGRATIONS.length : MIGRATIONS.findIndex((m) => m.name === options.until) + 1;
  if (last === 0) throw new Error(`no migration ${options.until}`);
  // Read once: the server's deadlock_timeout does not change between this start's migrations.
  const lockTimeoutMs = engine === 'postgres' ? await migrationLockTimeoutMs(db, options.lockTimeoutMs ?? MIGRATION_LOCK_TIMEOUT_MS) : 0;
  // What was applied before this start stays applied: only the others open a transaction of their
  // own (each still asks again under the lock, as another node may be applying it right now).
  for (const migration of MIGRATIONS.slice(0, last).filter((m) => !done.has(m.name))) {
    // SQLite's way to rebuild a table another references: foreign keys off
    // around the transaction (a pragma that is a no-op inside one).
    const keysOff = engine === 'sqlite' && migration.rebuildsTables === true;
    if (keysOff) await sql`pragma foreign_keys = off`.execute(db);
    try {
      await withLockRetries(migration.name, options, () => runOne(handle, migration, applied, lockTimeoutMs));
    } finally {
      if (keysOff) await sql`pragma foreign_keys = on`.execute(db);
    }
  }
  // Databases migrated before schema_breaks existed: record their breaking migrations now.
  for (const m of MIGRATIONS.filter((x) => x.breaksOlder === true)) {
    await sql`insert into schema_breaks (name) select name from schema_migrations where name = ${m.name} and not exists (select 1 from schema_breaks where name = ${m.name})`.execute(
      db,
    );
  }
  return applied;
}

/**
 * Whether the database already holds a platform: its schema and at least one user. Asked before
 * migrating, so a node that must join an existing platform (JOIN_PLATFORM) writes nothing to a
 * database that holds none.
 */
export async function holdsPlatform({ db, engine }: DatabaseHandle): Promise<boolean> {
  const table =
    engine === 'sqlite'
      ? await sql<{ n: number }>`select count(*) as n from sqlite_master where type = 'table' and name = 'users'`.execute(db)
      : await sql<{ n: number }>`select count(*)::int as n from pg_tables where tablename = 'users' and schemaname = any(current_schemas(false))`.execute(db);
  if (Number(table.rows[0]?.n ?? 0) === 0) return false;
  const users = await sql<{ one: number }>`select 1 as one from users limit 1`.execute(db);
  return users.rows.length > 0;
}

/**
 * A database a newer release migrated: this release runs on it only if every migration it does
 * not know only expanded the schema (a rolling upgrade, or a rollback before any contracting
 * migration). A migration recorded as breaking older releases stops it, named. `known` is the
 * migrations this release knows (a test may pretend to be an older release). Returns the names of
 * the migrations the database holds.
 */
export async function checkNewerSchema({ db }: DatabaseHandle, known: readonly string[], warn?: (message: string) => void): Promise<Set<string>> {
  const knownSet = new Set(known);
  const found = await sql<{ name: string }>`select name from schema_migrations order by name`.execute(db);
  const names = new Set(found.rows.map((r) => r.name));
  const unknown = [...names].filter((name) => !knownSet.has(name));
  if (unknown.length === 0) return names;
  const breaks = new Set((await sql<{ name: string }>`select name from schema_breaks`.execute(db)).rows.map((r) => r.name));
  const breaking = unknown.filter((name) => breaks.has(name));
  if (breaking.length > 0) {
    throw new Error(
      `the database has migration${breaking.length === 1 ? '' : 's'} ${breaking.join(', ')}, which this release of Almoner does not know (its last is ${known.at(-1)}) and which older releases must not run on: run the release that applied ${breaking.length === 1 ? 'it' : 'them'}, or a newer one`,
    );
  }
  warn?.(`the database has newer migrations (${unknown.join(', ')}) that keep this release working (they only add to the schema); upgrade this node when you can`);
  return names;
}

/**
 * How long a migration's statement waits for a table lock on PostgreSQL before it gives up (and
 * is tried again): an ALTER waiting for a lock blocks every request behind it on that table, so
 * under write load (a rolling upgrade beside older nodes) it must wait briefly, not for ever, and
 * never become one side of a deadlock the hot path loses (migrationLockTimeoutMs: at most half of
 * deadlock_timeout, so 500 ms on a default server).
 */
export const MIGRATION_LOCK_TIMEOUT_MS = 2_000;
const MIGRATION_ATTEMPTS = 12;

/**
 * The lock timeout a migration's statements run with on PostgreSQL: `wanted`, and never more than
 * half the server's deadlock_timeout. A migration that holds one table and waits for another can
 * close a cycle with a request that already waits for the first; PostgreSQL breaks a cycle by
 * failing whoever has waited deadlock_timeout first, which may be that request (a donor's, on an
 * older node). Giving up sooner, the migration is always the one that yields, and is tried again.
 */
export async function migrationLockTimeoutMs(db: Kysely<any>, wanted: number): Promise<number> {
  const found = await sql<{ ms: number }>`select setting::int as ms from pg_settings where name = 'deadlock_timeout'`.execute(db);
  const deadlockMs = Number(found.rows[0]?.ms ?? 1_000);
  return Math.max(1, Math.trunc(Math.min(wanted, deadlockMs / 2)));
}

/** Lock not available in time, or a deadlock: PostgreSQL rolled the migration back; it may be tried again. */
function lockRefused(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '55P03' || code === '40P01';
}

/** Runs `once` (one migration in its transaction) again with backoff while a lock refuses it; then fails naming it. */
async function withLockRetries(
  name: string,
  options: { retrying?: (migration: string, attempt: number, reason: string) => void; attempts?: number },
  once: () => Promise<void>,
): Promise<void> {
  const attempts = options.attempts ?? MIGRATION_ATTEMPTS;
  for (let attempt = 1; ; attempt++) {
    try {
      await once();
      return;
    } catch (error) {
      if (!lockRefused(error) || attempt >= attempts) {
        throw new Error(`migration ${name} failed: ${(error as Error).message}`, { cause: error });
      }
      options.retrying?.(name, attempt, (error as Error).message);
      await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, 100 * 2 ** attempt) * (0.5 + Math.random() / 2)));
    }
  }
}

async function runOne({ db, engine }: DatabaseHandle, migration: (typeof MIGRATIONS)[number], applied: string[], lockTimeoutMs: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // On PostgreSQL two nodes may start at once: the advisory lock makes
    // the second wait and then see the migration as done.
    if (engine === 'postgres') await sql`select pg_advisory_xact_lock(7243001)`.execute(trx);
    // Each of its statements waits at most this long for a table's lock (the advisory one above waits as long as it must).
    if (engine === 'postgres') await sql.raw(`set local lock_timeout = ${lockTimeoutMs}`).execute(trx);
    const done = await sql<{ name: string }>`select name from schema_migrations where name = ${migration.name}`.execute(trx);
    if (done.rows.length > 0) return;
    await migration.up(trx, engine);
    if (migration.breaksOlder === true) await sql`insert into schema_breaks (name) values (${migration.name})`.execute(trx);
    await sql`insert into schema_migrations (name, applied_at) values (${migration.name}, ${new Date().toISOString()})`.execute(trx);
    applied.push(migration.name);
  });
}
