// Every SQL statement of the journal.
import { sql, type Transaction } from 'kysely';
import type { Db, Engine } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { assert } from '../../shared/assert.ts';
import {
  FUND_ACCOUNT_KINDS,
  OUTSIDE_ACCOUNT_KINDS,
  postingsOf,
  type FundAccountKind,
  type FundBalances,
  type Movement,
  type OutsideAccountKind,
} from './ledger.ts';

export type Trx = Transaction<Database>;

export interface FundAccounts {
  ids: Record<FundAccountKind, number>;
  balances: FundBalances;
}

export async function createFundAccounts(trx: Trx, fundId: number): Promise<void> {
  await trx.insertInto('ledger_accounts')
    .values(FUND_ACCOUNT_KINDS.map((kind) => ({ fund_id: fundId, kind, balance_cents: 0 })))
    .execute();
}

export async function ensureOutsideAccounts(db: Db): Promise<void> {
  for (const kind of OUTSIDE_ACCOUNT_KINDS) {
    const found = await db.selectFrom('ledger_accounts').select('id').where('fund_id', 'is', null).where('kind', '=', kind).executeTakeFirst();
    if (found === undefined) await db.insertInto('ledger_accounts').values({ fund_id: null, kind, balance_cents: 0 }).execute();
  }
}

export async function outsideAccountId(trx: Trx | Db, kind: OutsideAccountKind): Promise<number> {
  const row = await trx.selectFrom('ledger_accounts').select('id').where('fund_id', 'is', null).where('kind', '=', kind).executeTakeFirst();
  assert(row !== undefined, `outside account ${kind} exists (created at start)`);
  return row.id;
}

function toFundAccounts(rows: Array<{ id: number; kind: string; balance_cents: number }>): FundAccounts {
  const ids: Partial<Record<FundAccountKind, number>> = {};
  const balances: Partial<Record<FundAccountKind, number>> = {};
  for (const row of rows) {
    ids[row.kind as FundAccountKind] = row.id;
    balances[row.kind as FundAccountKind] = row.balance_cents;
  }
  for (const kind of FUND_ACCOUNT_KINDS) assert(ids[kind] !== undefined, `fund account ${kind} exists`);
  const b = balances as Record<FundAccountKind, number>;
  return {
    ids: ids as Record<FundAccountKind, number>,
    balances: {
      pending_deposit_cents: b.pending_deposit,
      available_cents: b.available,
      reserved_cents: b.reserved,
      portfolio_cents: b.portfolio,
    },
  };
}

/**
 * Reads a fund's accounts and, on PostgreSQL, locks them until the
 * transaction ends, so two requests racing for the same dollars run one
 * after the other. (SQLite transactions already run one at a time.)
 */
export async function lockFundAccounts(trx: Trx, engine: Engine, fundId: number): Promise<FundAccounts> {
  let query = trx.selectFrom('ledger_accounts').select(['id', 'kind', 'balance_cents']).where('fund_id', '=', fundId).orderBy('id');
  if (engine === 'postgres') query = query.forUpdate();
  return toFundAccounts(await query.execute());
}

export async function readFundAccounts(db: Db, fundId: number): Promise<FundAccounts> {
  const rows = await db.selectFrom('ledger_accounts').select(['id', 'kind', 'balance_cents']).where('fund_id', '=', fundId).execute();
  return toFundAccounts(rows);
}

export interface EntryCause {
  memo: string;
  donation_id?: number;
  gift_id?: number;
  contribution_id?: number;
}

/** Appends one balanced journal entry and moves the cached balances with it. */
export async function postEntry(trx: Trx, cause: EntryCause, movements: readonly Movement[], at: string): Promise<number> {
  assert(
    cause.donation_id !== undefined || cause.gift_id !== undefined || cause.contribution_id !== undefined,
    'every entry names what caused it',
  );
  const postings = postingsOf(movements);
  const entry = await trx.insertInto('journal_entries').values({
    memo: cause.memo,
    donation_id: cause.donation_id ?? null,
    gift_id: cause.gift_id ?? null,
    contribution_id: cause.contribution_id ?? null,
    created_at: at,
  }).returning('id').executeTakeFirstOrThrow();
  await trx.insertInto('postings').values(postings.map((p) => ({ entry_id: entry.id, ...p }))).execute();
  for (const p of postings) {
    await trx.updateTable('ledger_accounts')
      .set({ balance_cents: sql`balance_cents + ${p.amount_cents}` })
      .where('id', '=', p.account_id)
      .execute();
  }
  return entry.id;
}
