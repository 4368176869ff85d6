// Every SQL statement of the journal.
import { dialectOf } from '../../db/dialect.ts';
import { CompiledQuery, sql, type Selectable } from 'kysely';
import type { Db, Trx } from '../../db/database.ts';
import type { Database, LedgerAccountsTable } from '../../db/schema.ts';
import { prepared } from '../../db/prepared.ts';
import { fromRowsStatement, idsIn, insertRows, postgresRows, rowsStatement, type Statement } from '../../db/bulk.ts';
import { reserveIds } from '../../db/ids.ts';
import { entryHash } from './ledger.encoding.ts';
import { LogTail } from './ledger.tail.ts';
import { assert, assertSafeInteger } from '../../shared/assert.ts';
import type { Book } from '../../shared/book.ts';
import { FUND_ACCOUNT_KINDS, postingsOf, type FundAccountKind, type FundBalances, type Movement, type OutsideAccountKind, type Posting } from './ledger.ts';

export interface FundAccounts {
  /** The book the fund and all its accounts are in. */
  book: Book;
  ids: Record<FundAccountKind, number>;
  balances: FundBalances;
}

export async function createFundAccounts(trx: Trx, fundId: number, book: Book): Promise<void> {
  await trx
    .insertInto('ledger_accounts')
    .values(FUND_ACCOUNT_KINDS.map((kind) => ({ fund_id: fundId, kind, balance_cents: 0, book })))
    .execute();
}

/** An account outside every fund by its kind and book, made if missing under the 'outside accounts' lock: nodes and valuations at once make it once. */
export async function outsideAccount(trx: Trx, kind: string, book: Book): Promise<number> {
  await dialectOf(trx).lockKeys(trx, ['outside accounts']);
  const [found] = await outsideAccountQuery(trx, { kind, book });
  if (found !== undefined) return Number(found.id);
  return Number((await trx.insertInto('ledger_accounts').values({ fund_id: null, kind, balance_cents: 0, book }).returning('id').executeTakeFirstOrThrow()).id);
}

// The statements of every money movement, prepared once (see db/prepared.ts).
const outsideAccountQuery = prepared<Database, { id: number }, { kind: string; book: Book }>((db, p) =>
  db.selectFrom('ledger_accounts').select('id').where('fund_id', 'is', null).where('kind', '=', p('kind')).where('book', '=', p('book')),
);
const fundAccountsQuery = prepared<Database, AccountRow, { fund_id: number }>((db, p) =>
  db.selectFrom('ledger_accounts').select(['id', 'kind', 'balance_cents', 'book']).where('fund_id', '=', p('fund_id')).orderBy('id'),
);
const fundAccountsForUpdateQuery = prepared<Database, AccountRow, { fund_id: number }>((db, p) =>
  db.selectFrom('ledger_accounts').select(['id', 'kind', 'balance_cents', 'book']).where('fund_id', '=', p('fund_id')).orderBy('id').forUpdate(),
);
const insertEntryQuery = prepared<Database, never, ReturnType<typeof causeColumns> & { id: number; created_at: string; entry_hash: string }>((db, p) =>
  db.insertInto('journal_entries').values({
    id: p('id'),
    book: p('book'),
    memo: p('memo'),
    donation_id: p('donation_id'),
    gift_id: p('gift_id'),
    contribution_id: p('contribution_id'),
    audit_id: p('audit_id'),
    match_id: p('match_id'),
    created_at: p('created_at'),
    entry_hash: p('entry_hash'),
  }),
);
const insertPlaceQuery = prepared<Database, never, { book: Book; leaf: number; entry_id: number; chain_hash: string }>((db, p) =>
  db.insertInto('ledger_places').values({ book: p('book'), leaf: p('leaf'), entry_id: p('entry_id'), chain_hash: p('chain_hash') }),
);
const insertPostingQuery = prepared<Database, never, { book: Book; entry_id: number; account_id: number; amount_cents: number }>((db, p) =>
  db.insertInto('postings').values({ book: p('book'), entry_id: p('entry_id'), account_id: p('account_id'), amount_cents: p('amount_cents') }),
);
const moveBalanceQuery = prepared<Database, never, { id: number; amount_cents: number }>((db, p) =>
  db
    .updateTable('ledger_accounts')
    .set({ balance_cents: sql`balance_cents + ${p('amount_cents')}` })
    .where('id', '=', p('id')),
);

// A movement between two accounts (nearly every entry) in two statements
// instead of four: fewer round trips while the fund's accounts are locked.
const insertPostingPairQuery = prepared<Database, never, { book: Book; entry_id: number; a: number; a_cents: number; b: number; b_cents: number }>((db, p) =>
  db.insertInto('postings').values([
    { book: p('book'), entry_id: p('entry_id'), account_id: p('a'), amount_cents: p('a_cents') },
    { book: p('book'), entry_id: p('entry_id'), account_id: p('b'), amount_cents: p('b_cents') },
  ]),
);
const movePairQuery = prepared<Database, never, { a: number; a_cents: number; b: number; b_cents: number }>((db, p) =>
  db
    .updateTable('ledger_accounts')
    .set({ balance_cents: sql`balance_cents + case when id = ${p('a')} then cast(${p('a_cents')} as bigint) else cast(${p('b_cents')} as bigint) end` })
    .where('id', 'in', [p('a'), p('b')]),
);

type AccountRow = Pick<Selectable<LedgerAccountsTable>, 'id' | 'kind' | 'balance_cents' | 'book'>;

export async function outsideAccountId(trx: Trx | Db, kind: OutsideAccountKind, book: Book): Promise<number> {
  const [row] = await outsideAccountQuery(trx, { kind, book });
  assert(row !== undefined, `outside account ${kind} of the ${book} book exists (created at start)`);
  return row.id;
}

function toFundAccounts(rows: AccountRow[]): FundAccounts {
  const ids: Partial<Record<FundAccountKind, number>> = {};
  const balances: Partial<Record<FundAccountKind, number>> = {};
  const book = rows[0]?.book;
  assert(book !== undefined, 'a fund has accounts');
  for (const row of rows) {
    assert(row.book === book, "a fund's accounts are all in one book");
    ids[row.kind as FundAccountKind] = row.id;
    balances[row.kind as FundAccountKind] = row.balance_cents;
  }
  for (const kind of FUND_ACCOUNT_KINDS) assert(ids[kind] !== undefined, `fund account ${kind} exists`);
  const b = balances as Record<FundAccountKind, number>;
  return {
    book,
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
export async function lockFundAccounts(trx: Trx, fundId: number): Promise<FundAccounts> {
  const { engine } = dialectOf(trx);
  return toFundAccounts(await (engine === 'postgres' ? fundAccountsForUpdateQuery : fundAccountsQuery)(trx, { fund_id: fundId }));
}

/**
 * Several funds' accounts, read and (on PostgreSQL) locked in one statement, in ascending fund
 * order and each fund's in id order, as lockFundAccounts one fund after another would take
 * them: a round over many funds pays one statement instead of one per fund. The fund ids go as
 * one JSON value, so the SQL is the same for any number of them (named once per connection).
 */
export async function lockFundsAccounts(trx: Trx, fundIds: readonly number[]): Promise<Map<number, FundAccounts>> {
  const { engine } = dialectOf(trx);
  const funds = [...new Set(fundIds)].sort((a, b) => a - b);
  const [only] = funds;
  if (funds.length === 1 && only !== undefined) return new Map([[only, await lockFundAccounts(trx, only)]]);
  return byFund(funds, funds.length === 0 ? [] : await lockedRows(trx, engine, funds));
}

/** The funds' accounts, read without a lock, on any connection (a valuation's funds whose available money it leaves alone). */
export async function readFundsAccounts(db: Db | Trx, fundIds: readonly number[]): Promise<Map<number, FundAccounts>> {
  const funds = [...new Set(fundIds)].sort((a, b) => a - b);
  return byFund(funds, funds.length === 0 ? [] : await readRows(db, funds));
}

function byFund(funds: readonly number[], rows: ReadonlyArray<AccountRow & { fund_id: number | null }>): Map<number, FundAccounts> {
  for (const id of funds) assertSafeInteger(id, 'fund id');
  const grouped = Map.groupBy(rows, (r) => Number(r.fund_id));
  return new Map(funds.map((id) => [id, toFundAccounts(grouped.get(id) ?? [])]));
}

/** The funds' accounts, locked on PostgreSQL: the ids as one JSON value, so the SQL is the same for any number (named once per connection). */
async function lockedRows(trx: Trx, engine: string, funds: readonly number[]) {
  const text =
    engine === 'postgres'
      ? `select id, kind, balance_cents, book, fund_id from ledger_accounts
          where fund_id in (select cast(value as bigint) from json_array_elements_text(cast($1 as json))) order by fund_id, id for update`
      : 'select id, kind, balance_cents, book, fund_id from ledger_accounts where fund_id in (select value from json_each(?)) order by fund_id, id';
  dialectOf(trx).prepare(text);
  return (await trx.executeQuery<AccountRow & { fund_id: number }>(CompiledQuery.raw(text, [JSON.stringify(funds)]))).rows;
}

/** The funds' accounts, read, not locked: the ids as one JSON value (db/bulk.ts idsIn). */
async function readRows(db: Db | Trx, funds: readonly number[]) {
  return await db
    .selectFrom('ledger_accounts')
    .select(['id', 'kind', 'balance_cents', 'book', 'fund_id'])
    .where(sql<boolean>`fund_id in ${idsIn(db, funds, 'fund id')}`)
    .orderBy('fund_id')
    .orderBy('id')
    .execute();
}

export async function readFundAccounts(db: Db, fundId: number): Promise<FundAccounts> {
  return toFundAccounts(await fundAccountsQuery(db, { fund_id: fundId }));
}

export interface EntryCause {
  /**
   * The book the entry is in. Every posting is written in it too, and the
   * database refuses a posting on an account of the other book (013_books).
   */
  book: Book;
  memo: string;
  donation_id?: number;
  gift_id?: number;
  contribution_id?: number;
  /** An operator's action with no other cause (a portfolio move). */
  audit_id?: number;
  /** A match's hold, or its release (rules §22). */
  match_id?: number;
}

/** An entry's cause as its columns (and its encoding) name it. */
function causeColumns(cause: EntryCause) {
  return {
    book: cause.book,
    memo: cause.memo,
    donation_id: cause.donation_id ?? null,
    gift_id: cause.gift_id ?? null,
    contribution_id: cause.contribution_id ?? null,
    audit_id: cause.audit_id ?? null,
    match_id: cause.match_id ?? null,
  };
}

function assertCaused(cause: EntryCause): void {
  assert(
    cause.donation_id !== undefined || cause.gift_id !== undefined || cause.contribution_id !== undefined || cause.audit_id !== undefined || cause.match_id !== undefined,
    'every entry names what caused it',
  );
}

/** Appends one balanced journal entry and moves the cached balances with it. */
export async function postEntry(trx: Trx, cause: EntryCause, movements: readonly Movement[], at: string): Promise<number> {
  assertCaused(cause);
  const postings = postingsOf(movements);
  // Its id first: its hash names it, and where the writer gives places (SQLite) its place goes in
  // before it, so it never waits; one write of its row, not a row and then its hash (rules §26).
  const [[id], tail] = await Promise.all([reserveEntryIds(trx, 1), LogTail.open(trx, [cause.book])]);
  assert(id !== undefined, 'an id was taken');
  const hash = entryHash({ ...causeColumns(cause), id, created_at: at, postings });
  const place = tail?.place(cause.book, hash);
  if (place !== undefined) await insertPlaceQuery(trx, { book: cause.book, leaf: place.log_seq, entry_id: id, chain_hash: place.chain_hash });
  await insertEntryQuery(trx, { ...causeColumns(cause), id, created_at: at, entry_hash: hash });
  const [a, b] = postings;
  if (postings.length === 2 && a !== undefined && b !== undefined) {
    await insertPostingPairQuery(trx, { book: cause.book, entry_id: id, a: a.account_id, a_cents: a.amount_cents, b: b.account_id, b_cents: b.amount_cents });
    await movePairQuery(trx, { a: a.account_id, a_cents: a.amount_cents, b: b.account_id, b_cents: b.amount_cents });
    return id;
  }
  for (const posting of postings) {
    await insertPostingQuery(trx, { book: cause.book, entry_id: id, ...posting });
    await moveBalanceQuery(trx, { id: posting.account_id, amount_cents: posting.amount_cents });
  }
  return id;
}

type NewEntry = { id: number; cause: EntryCause; movements: readonly Movement[] };

/**
 * The statements that append many balanced journal entries (a batch of
 * donations' holds), with the ids reserved for them (`reserveEntryIds`), and
 * move each cached balance once, by the sum of its postings.
 */
export function entryStatements(entries: readonly NewEntry[], at: string, tail: LogTail | undefined): Statement[] {
  const { inserts, deltas } = entryRows(withPostings(entries), at, tail);
  return [...inserts, ...moveStatements(deltas)];
}

/**
 * entryStatements for entries written as postings (each entry's sum to zero, none zero): a
 * valuation's round is one entry per book, each fund's net change beside the market's total. The
 * balance moves of the accounts `last` names come apart, for the writer to run after the rest (a
 * valuation's market and fees accounts, which every round posts to: valuation.rounds.ts).
 */
export function postingEntryStatements(
  entries: ReadonlyArray<{ id: number; cause: EntryCause; postings: readonly Posting[] }>,
  at: string,
  tail: LogTail | undefined,
  last: ReadonlySet<number> = new Set(),
): { first: Statement[]; last: Statement[] } {
  for (const e of entries) {
    for (const p of e.postings) {
      assertSafeInteger(p.amount_cents, 'posting amount');
      assert(p.amount_cents !== 0, 'a posting moves money');
    }
    assert(e.postings.reduce((n, p) => n + p.amount_cents, 0) === 0, 'a journal entry must balance');
  }
  const { inserts, deltas } = entryRows(entries, at, tail);
  const later = new Map([...deltas].filter(([id]) => last.has(id)));
  for (const id of later.keys()) deltas.delete(id);
  return { first: [...inserts, ...moveStatements(deltas)], last: moveStatements(later) };
}

function withPostings(entries: readonly NewEntry[]): Array<{ id: number; cause: EntryCause; postings: Posting[] }> {
  return entries.map((e) => ({ id: e.id, cause: e.cause, postings: postingsOf(e.movements) }));
}

/**
 * entryStatements for db/bulk.ts runIfAllRows: each `guarded` account's
 * movement is a compare-and-set, made only while its balance is still
 * `expected_cents`, which returns its id and new balance as `value`;
 * everything else is in `statements`.
 */
export function guardedEntryStatements(
  entries: readonly NewEntry[],
  at: string,
  guarded: ReadonlyArray<{ account_id: number; expected_cents: number }>,
): { guard: Statement; statements: Statement[] } {
  assert(guarded.length > 0 && new Set(guarded.map((g) => g.account_id)).size === guarded.length, 'one guard per account');
  // PostgreSQL only: the sequencer places these entries (ledger.tail.ts).
  const { inserts, deltas } = entryRows(withPostings(entries), at, undefined);
  const moves = guarded.map((g) => {
    const cents = deltas.get(g.account_id) ?? 0;
    deltas.delete(g.account_id);
    assertSafeInteger(g.expected_cents + cents, 'guarded balance');
    return [g.account_id, g.expected_cents, cents];
  });
  return {
    // PostgreSQL only (runIfAllRows): its rows as one JSON value, so its SQL is the same for any number of funds.
    guard: rowsStatement(
      () => {
        throw new Error('a guarded write runs on PostgreSQL only');
      },
      (params) => `update ledger_accounts a set balance_cents = a.balance_cents + g.cents
      from ${postgresRows(params, 'id bigint, expected bigint, cents bigint', moves, 'g')}
      where a.id = g.id and a.balance_cents = g.expected returning a.id, a.balance_cents as value`,
    ),
    statements: [...inserts, ...moveStatements(deltas)],
  };
}

/** The rows of entries and their postings; `tail`: the log's, where the writer places entries (ledger.tail.ts). */
function entryRows(
  entries: ReadonlyArray<{ id: number; cause: EntryCause; postings: readonly Posting[] }>,
  at: string,
  tail: LogTail | undefined,
): { inserts: Statement[]; deltas: Map<number, number> } {
  const deltas = new Map<number, number>();
  if (entries.length === 0) return { inserts: [], deltas };
  const postings: Array<[number, number, number, Book]> = [];
  // Each entry's place where the writer gives it (SQLite), inserted before the entries: an entry
  // inserted without one is named among those waiting for one (migration 060; rules §26).
  const [rows, places]: [unknown[][], unknown[][]] = [[], []];
  // In id order: a log placed by the writer takes them as they were reserved.
  for (const e of [...entries].sort((a, b) => a.id - b.id)) {
    assertCaused(e.cause);
    for (const p of e.postings) {
      postings.push([e.id, p.account_id, p.amount_cents, e.cause.book]);
      deltas.set(p.account_id, (deltas.get(p.account_id) ?? 0) + p.amount_cents);
    }
    const c = causeColumns(e.cause);
    const hash = entryHash({ ...c, id: e.id, created_at: at, postings: e.postings });
    rows.push([e.id, c.book, c.memo, c.donation_id, c.gift_id, c.contribution_id, c.audit_id, c.match_id, at, hash]);
    const place = tail?.place(c.book, hash);
    if (place !== undefined) places.push([c.book, place.log_seq, e.id, place.chain_hash]);
  }
  return {
    inserts: [
      ...insertRows('ledger_places', 'book text, leaf bigint, entry_id bigint, chain_hash text', places),
      ...insertRows('journal_entries', ENTRY_TYPES, rows),
      ...insertRows('postings', 'entry_id bigint, account_id bigint, amount_cents bigint, book text', postings),
    ],
    deltas,
  };
}

/** A journal entry's columns and their types (bulk.ts insertRows). */
const ENTRY_TYPES =
  'id bigint, book text, memo text, donation_id bigint, gift_id bigint, contribution_id bigint, audit_id bigint, match_id bigint, created_at text, entry_hash text';

/** Most accounts one UPDATE of balances moves. */
const MOVES_PER_STATEMENT = 1000;

/** Moves each account's cached balance by its sum, an UPDATE per thousand accounts. */
function moveStatements(deltas: ReadonlyMap<number, number>): Statement[] {
  const all = [...deltas].filter(([, cents]) => cents !== 0);
  for (const [, cents] of all) assertSafeInteger(cents, 'balance movement');
  const out: Statement[] = [];
  for (let i = 0; i < all.length; i += MOVES_PER_STATEMENT) out.push(moveStatement(all.slice(i, i + MOVES_PER_STATEMENT)));
  return out;
}

function moveStatement(moves: ReadonlyArray<readonly [number, number]>): Statement {
  return fromRowsStatement(
    'id bigint, cents bigint',
    moves,
    'm',
    (m) => `update ledger_accounts set balance_cents = ledger_accounts.balance_cents + m.cents from ${m} where ledger_accounts.id = m.id`,
  );
}

/** Ids for `n` journal entries (db/ids.ts). */
export function reserveEntryIds(trx: Trx, n: number): Promise<number[]> {
  return reserveIds(trx, 'journal_entries', n);
}

/** Every journal line on a fund's accounts, oldest first (an operator's statement). */
export async function journalOfFund(db: Db, fundId: number) {
  return db
    .selectFrom('postings as p')
    .innerJoin('journal_entries as j', 'j.id', 'p.entry_id')
    .innerJoin('ledger_accounts as a', 'a.id', 'p.account_id')
    .select(['j.id as entry_id', 'j.created_at', 'j.memo', 'a.kind as account', 'p.amount_cents', 'j.donation_id', 'j.gift_id', 'j.contribution_id', 'j.audit_id'])
    .where('a.fund_id', '=', fundId)
    .orderBy('j.id')
    .orderBy('p.id')
    .execute();
}
