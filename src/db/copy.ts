// `almoner db copy --from <sqlite file> --to <postgres url>`: moves a whole
// platform from the embedded default to PostgreSQL. The target is migrated,
// must be empty, and receives every row with its id; identity sequences are
// moved past the copied ids; row counts are compared table by table.
import { sql } from 'kysely';
import type { DatabaseHandle } from './database.ts';
import { bulkInsert } from './bulk.ts';
import { WAITED_BEFORE_TXID } from './migrations/063_log_by_transaction.ts';

/** Every table, parents before children (foreign keys hold at every step). */
export const TABLES_IN_ORDER = [
  'platform_settings',
  'causes',
  'users',
  'accounts',
  'invitations',
  'web_sessions',
  'sign_in_failures',
  'funds',
  'fund_causes',
  'follows',
  'api_keys',
  'auth_epoch',
  'admin_tokens',
  'audit_log',
  'non_profits',
  'non_profit_words',
  'zip_centroids',
  'directory_vocabulary',
  'directory_top',
  'directory_epoch',
  'import_runs',
  'fundraisers',
  'matches',
  'scheduled_donations',
  'donations',
  'donation_counts',
  'gifts',
  'contributions',
  'receipts',
  'ledger_accounts',
  'journal_entries',
  'postings',
  'ledger_places',
  'ledger_waiting',
  'idempotency_keys',
  'events',
  'webhook_endpoints',
  'webhook_deliveries',
  'webhook_attempts',
  'mail_outbox',
  'password_resets',
  'address_confirmations',
  'apps',
  'app_connections',
  'app_spending',
  'check_runs',
  'oidc_artifacts',
  'oidc_keys',
  'diligence_lists',
  'revocations',
  'pub78',
  'sanctions',
  'sanction_reviews',
  'payment_runs',
  'payee_accounts',
  'payments',
  'payment_grants',
  'payment_exceptions',
  'charity_claims',
  'portfolios',
  'prices',
  'valuations',
  'portfolio_valuations',
  'fund_allocations',
  'fund_units',
  'exchanges',
  'investments',
  'fund_valuations',
  'monthly_fees',
  'fund_members',
  'member_roles',
  'successor_lines',
  'death_records',
  'ledger_checkpoints',
  'ledger_cosignatures',
  'ledger_keys',
] as const;

/** Rows the platform writes when it opens an empty database; the copy replaces them with the source's. */
const SEEDED = ['causes', 'ledger_accounts', 'auth_epoch', 'directory_epoch', 'oidc_keys', 'ledger_keys'] as const;
const WITH_IDENTITY = new Set([
  'ledger_keys',
  'apps',
  'fundraisers',
  'matches',
  'check_runs',
  'app_connections',
  'oidc_keys',
  'users',
  'sign_in_failures',
  'funds',
  'api_keys',
  'admin_tokens',
  'audit_log',
  'non_profits',
  'import_runs',
  'scheduled_donations',
  'donations',
  'gifts',
  'contributions',
  'receipts',
  'ledger_accounts',
  'journal_entries',
  'postings',
  'events',
  'webhook_endpoints',
  'webhook_deliveries',
  'webhook_attempts',
  'mail_outbox',
  'diligence_lists',
  'sanction_reviews',
  'payment_runs',
  'payee_accounts',
  'payments',
  'charity_claims',
  'portfolios',
  'prices',
  'valuations',
  'exchanges',
  'investments',
  'fund_members',
  'member_roles',
  'successor_lines',
  'death_records',
]);
const READ_BATCH = 5_000;

export interface CopyReport {
  tables: Array<{ table: string; source: number; target: number }>;
}

async function countOf(handle: DatabaseHandle, table: string): Promise<number> {
  // PostgreSQL keeps no waiting rows (migration 063): its entries waiting for a place are those with a txid and no place.
  if (table === 'ledger_waiting' && handle.engine === 'postgres') {
    const waiting = await sql<{ n: number }>`select count(*) as n from journal_entries j
      where j.txid is not null and not exists (select 1 from ledger_places p where p.entry_id = j.id)`.execute(handle.db);
    return Number(waiting.rows[0]?.n ?? 0);
  }
  const result = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(handle.db);
  return Number(result.rows[0]?.n ?? 0);
}

/** Throws when the target already holds users or organisations. */
export async function copyDatabase(from: DatabaseHandle, to: DatabaseHandle, onTable?: (table: string, rows: number) => void): Promise<CopyReport> {
  if (from.engine !== 'sqlite') throw new Error('copy reads from an SQLite file (sqlite:PATH)');
  for (const table of ['users', 'non_profits', 'donations']) {
    if ((await countOf(to, table)) > 0) throw new Error(`the target already has rows in ${table}: copy only into an empty database`);
  }
  await to.db.transaction().execute(async (trx) => {
    for (const table of [...SEEDED].reverse()) await sql`delete from ${sql.table(table)}`.execute(trx);
    // PostgreSQL would give each copied entry the copy's transaction id, as waiting for its place
    // (migration 063): they are copied without one, and the source's waiting entries given one after.
    if (to.engine === 'postgres') await sql`alter table journal_entries alter column txid drop default`.execute(trx);
    for (const table of TABLES_IN_ORDER) {
      if (table === 'ledger_waiting' && to.engine === 'postgres') {
        const waiting = (await sql<{ entry_id: number }>`select entry_id from ledger_waiting`.execute(from.db)).rows.map((r) => Number(r.entry_id));
        for (let i = 0; i < waiting.length; i += 5000)
          await sql`update journal_entries set txid = ${WAITED_BEFORE_TXID}::xid8 where id in (${sql.join(waiting.slice(i, i + 5000))})`.execute(trx);
        await sql`alter table journal_entries alter column txid set default pg_current_xact_id()`.execute(trx);
        onTable?.(table, waiting.length);
        continue;
      }
      // Read in rowid order, a batch after the last rowid seen: every row once, in bounded memory.
      let after = 0;
      let copied = 0;
      for (;;) {
        const batch = (
          await sql<Record<string, unknown>>`select rowid as copy_rowid, * from ${sql.table(table)} where rowid > ${after} order by rowid limit ${READ_BATCH}`.execute(from.db)
        ).rows;
        if (batch.length === 0) break;
        after = Number(batch[batch.length - 1]?.copy_rowid);
        const rows = batch.map(({ copy_rowid: _rowid, ...row }) => row);
        const columns = Object.keys(rows[0] as object);
        // Within every engine's limit on bound parameters.
        const perInsert = Math.max(1, Math.floor(30_000 / columns.length));
        for (let i = 0; i < rows.length; i += perInsert) {
          await bulkInsert(
            trx,
            table,
            columns,
            rows.slice(i, i + perInsert).map((r) => columns.map((c) => r[c])),
          );
        }
        copied += rows.length;
      }
      onTable?.(table, copied);
    }
    if (to.engine === 'postgres') {
      for (const table of WITH_IDENTITY) {
        await sql`select setval(pg_get_serial_sequence(${table}, 'id'), coalesce((select max(id) from ${sql.table(table)}), 0) + 1, false)`.execute(trx);
      }
    }
  });
  const tables: CopyReport['tables'] = [];
  for (const table of TABLES_IN_ORDER) tables.push({ table, source: await countOf(from, table), target: await countOf(to, table) });
  return { tables };
}
