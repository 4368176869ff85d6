// Every SQL statement of `almoner check`: it reads what it checks as it is,
// however wrong. Every sum is exact (a PostgreSQL numeric, or on SQLite two
// 32-bit halves summed apart, never a float and never an overflow) and every
// stored amount is read as text into a BigInt.
import { dialectOf, type Dialect } from '../../db/dialect.ts';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';

export type Row = Record<string, unknown>;

/** A statement's rows as the database holds them (check.payments.store.ts reads with it too). */
export async function rows(db: Db, query: string): Promise<Row[]> {
  return (await sql.raw<Row>(query).execute(db)).rows;
}

/**
 * `sum(column)` as exact text columns `<as>_hi` and `<as>_lo`: read them back
 * with `total`. SQLite's sum() of integers fails on overflow, so it sums the
 * high and low 32 bits apart (each fits for up to 2^31 rows).
 */
function exactSum(dialect: Dialect, column: string, as: string): string {
  return dialect.engine === 'postgres'
    ? `cast(coalesce(sum(${column}), 0) as text) as ${as}_hi, '0' as ${as}_lo`
    : `cast(coalesce(sum(${column} >> 32), 0) as text) as ${as}_hi, cast(coalesce(sum(${column} & 4294967295), 0) as text) as ${as}_lo`;
}

function total(dialect: Dialect, row: Row, as: string): bigint {
  const hi = BigInt(String(row[`${as}_hi`] ?? '0'));
  const lo = BigInt(String(row[`${as}_lo`] ?? '0'));
  return dialect.engine === 'postgres' ? hi : (hi << 32n) + lo;
}

const big = (value: unknown): bigint => BigInt(String(value ?? '0'));
const list = (values: readonly string[]): string => values.map((v) => `'${v.replace(/'/g, "''")}'`).join(',');

/** Each journal entry's postings: how many, and their exact sum. */
export async function entrySums(db: Db): Promise<Array<{ entry_id: number; postings: number; sum: bigint }>> {
  const dialect = dialectOf(db);
  const found = await rows(db, `select entry_id, count(*) as n, ${exactSum(dialect, 'amount_cents', 's')} from postings group by entry_id`);
  return found.map((r) => ({ entry_id: Number(r.entry_id), postings: Number(r.n), sum: total(dialect, r, 's') }));
}

/** Journal entries without a posting. */
export async function entriesWithoutPostings(db: Db): Promise<number[]> {
  return (await rows(db, 'select j.id from journal_entries j where not exists (select 1 from postings p where p.entry_id = j.id)')).map((r) => Number(r.id));
}

/** Journal entries that name no donation, gift, contribution, match or operator action. */
export async function entriesWithoutCause(db: Db): Promise<number[]> {
  const causes = ['donation_id', 'gift_id', 'contribution_id', 'audit_id', 'match_id'];
  return (await rows(db, `select id from journal_entries where ${causes.map((c) => `${c} is null`).join(' and ')}`)).map((r) => Number(r.id));
}

export interface StoredAccount {
  id: number;
  fund_id: number | null;
  kind: string;
  book: string;
  balance: bigint;
  /** The exact sum of its postings. */
  postings: bigint;
}

/** Every ledger account with its cached balance and the exact sum of its postings. */
export async function accountsWithPostings(db: Db): Promise<StoredAccount[]> {
  const dialect = dialectOf(db);
  const accounts = await rows(db, 'select id, fund_id, kind, book, cast(balance_cents as text) as balance from ledger_accounts');
  const sums = await rows(db, `select account_id, ${exactSum(dialect, 'amount_cents', 's')} from postings group by account_id`);
  const byAccount = new Map(sums.map((r) => [Number(r.account_id), total(dialect, r, 's')]));
  return accounts.map((r) => ({
    id: Number(r.id),
    fund_id: r.fund_id === null ? null : Number(r.fund_id),
    kind: String(r.kind),
    book: String(r.book),
    balance: big(r.balance),
    postings: byAccount.get(Number(r.id)) ?? 0n,
  }));
}

export type Cause = 'donation' | 'gift' | 'contribution';

/** For each donation, gift or contribution: the net of its postings on each account kind, exact. */
export async function netByCause(db: Db, cause: Cause): Promise<Map<number, Record<string, bigint>>> {
  const dialect = dialectOf(db);
  const found = await rows(
    db,
    `select j.${cause}_id as cause_id, a.kind, ${exactSum(dialect, 'p.amount_cents', 'net')}
    from postings p join journal_entries j on j.id = p.entry_id join ledger_accounts a on a.id = p.account_id
    where j.${cause}_id is not null group by j.${cause}_id, a.kind`,
  );
  const net = new Map<number, Record<string, bigint>>();
  for (const r of found) {
    const entry = net.get(Number(r.cause_id)) ?? {};
    entry[String(r.kind)] = (entry[String(r.kind)] ?? 0n) + total(dialect, r, 'net');
    net.set(Number(r.cause_id), entry);
  }
  return net;
}

/** Every donation, gift or contribution: its status and amount. */
export async function causes(db: Db, cause: Cause): Promise<Array<{ id: number; status: string; amount: bigint }>> {
  const found = await rows(db, `select id, status, cast(amount_cents as text) as amount from ${cause}s`);
  return found.map((r) => ({ id: Number(r.id), status: String(r.status), amount: big(r.amount) }));
}

/** Each fund's reserved balance, and what its held donations (in `heldStatuses`), new gifts and live matches hold, exactly. */
export async function reservedAndHeld(db: Db, heldStatuses: readonly string[]): Promise<Array<{ fund_id: number; reserved: bigint; held: bigint }>> {
  const dialect = dialectOf(db);
  const reserved = await rows(db, `select fund_id, cast(balance_cents as text) as balance from ledger_accounts where kind = 'reserved' and fund_id is not null`);
  const held = [
    ...(heldStatuses.length === 0
      ? []
      : await rows(db, `select fund_id, ${exactSum(dialect, 'amount_cents', 's')} from donations where status in (${list(heldStatuses)}) group by fund_id`)),
    ...(await rows(db, `select fund_id, ${exactSum(dialect, 'amount_cents', 's')} from gifts where status = 'new' group by fund_id`)),
    ...(await rows(db, `select fund_id, ${exactSum(dialect, '(cap_cents - matched_cents)', 's')} from matches where ended_at is null group by fund_id`)),
  ];
  const byFund = new Map<number, bigint>();
  for (const r of held) byFund.set(Number(r.fund_id), (byFund.get(Number(r.fund_id)) ?? 0n) + total(dialect, r, 's'));
  return reserved.map((r) => ({ fund_id: Number(r.fund_id), reserved: big(r.balance), held: byFund.get(Number(r.fund_id)) ?? 0n }));
}

/** Each user's kept donation counts beside the real ones (others count the public ones not in `hidden`). */
export async function donationCounts(db: Db, hidden: readonly string[]) {
  const found = await rows(
    db,
    `select u.id, c.total, c.public_total,
      (select count(*) from donations d where d.user_id = u.id) as actual,
      (select count(*) from donations d where d.user_id = u.id and d.visibility = 'public'${hidden.length === 0 ? '' : ` and d.status not in (${list(hidden)})`}) as actual_public
    from users u left join donation_counts c on c.user_id = u.id`,
  );
  return found.map((c) => ({
    user_id: Number(c.id),
    total: Number(c.total ?? 0),
    public_total: Number(c.public_total ?? 0),
    actual: Number(c.actual),
    actual_public: Number(c.actual_public),
  }));
}

/** Search words whose size is not their organisation's income (at most 1,000). */
export async function wrongWordSizes(db: Db): Promise<Array<{ ein: string; word: string; size: number; income_amt: number }>> {
  const found = await rows(
    db,
    `select n.ein, w.word, w.size, n.income_amt from non_profit_words w join non_profits n on n.id = w.non_profit_id
    where w.size <> n.income_amt limit 1000`,
  );
  return found.map((r) => ({ ein: String(r.ein), word: String(r.word), size: Number(r.size), income_amt: Number(r.income_amt) }));
}

/** Postings in another book than their entry's, or on an account of another book (at most 1,000). */
export async function postingsAcrossBooks(db: Db): Promise<Array<{ entry_id: number; entry_book: string; account_id: number; account_book: string }>> {
  const found = await rows(
    db,
    `select p.entry_id, j.book as entry_book, p.book as posting_book, a.book as account_book, a.id as account_id
    from postings p join journal_entries j on j.id = p.entry_id join ledger_accounts a on a.id = p.account_id
    where p.book <> j.book or a.book <> j.book order by p.entry_id limit 1000`,
  );
  return found.map((r) => ({ entry_id: Number(r.entry_id), entry_book: String(r.entry_book), account_id: Number(r.account_id), account_book: String(r.account_book) }));
}

/** Each relation whose two ends must share a book: what it is called, and the query finding the pairs that do not. */
const BOOK_RELATIONS: ReadonlyArray<[string, string]> = [
  ['fund', `select f.id, f.book as own, u.book as other, 'its user' as what from funds f join users u on u.id = f.user_id where f.book <> u.book`],
  ['ledger account', `select a.id, a.book as own, f.book as other, 'its fund' as what from ledger_accounts a join funds f on f.id = a.fund_id where a.book <> f.book`],
  ...['donations', 'gifts', 'contributions', 'scheduled_donations'].flatMap((table): Array<[string, string]> =>
    (['fund', 'user'] as const).map((end): [string, string] => [
      table.replace(/s$/, '').replace('_', ' '),
      `select o.id, o.book as own, x.book as other, 'its ${end}' as what from ${table} o join ${end}s x on x.id = o.${end}_id where o.book <> x.book`,
    ]),
  ),
  ...(['donation', 'gift', 'contribution'] as const).map((cause): [string, string] => [
    'journal entry',
    `select j.id, j.book as own, o.book as other, 'its ${cause}' as what from journal_entries j join ${cause}s o on o.id = j.${cause}_id where j.book <> o.book`,
  ]),
  ['gift', `select g.id, g.book as own, u.book as other, 'its recipient' as what from gifts g join users u on u.id = g.recipient_user_id where g.book <> u.book`],
  ['gift', `select g.id, g.book as own, d.book as other, 'the donation it made' as what from gifts g join donations d on d.id = g.donation_id where g.book <> d.book`],
  [
    'donation',
    `select d.id, d.book as own, s.book as other, 'its recurring donation' as what from donations d join scheduled_donations s on s.id = d.scheduled_donation_id where d.book <> s.book`,
  ],
  ['API key', `select k.id, k.mode as own, u.book as other, 'its user' as what from api_keys k join users u on u.id = k.user_id where k.mode <> u.book and k.revoked_at is null`],
  [
    'journal entry',
    `select j.id, j.book as own, a.book as other, 'the operator action that caused it' as what from journal_entries j join audit_log a on a.id = j.audit_id where j.book <> a.book`,
  ],
  ...(['donation', 'contribution'] as const).map((object): [string, string] => [
    'audit entry',
    `select a.id, a.book as own, o.book as other, 'its ${object}' as what from audit_log a join ${object}s o on o.id = a.object_id where a.object_type = '${object}' and a.book <> o.book`,
  ]),
];

/** Objects in another book than what they belong to (at most 1,000 per relation). */
export async function bookMismatches(db: Db): Promise<Array<{ name: string; id: number; own: string; other: string; what: string }>> {
  const found: Array<{ name: string; id: number; own: string; other: string; what: string }> = [];
  for (const [name, query] of BOOK_RELATIONS) {
    for (const r of await rows(db, `${query} limit 1000`)) found.push({ name, id: Number(r.id), own: String(r.own), other: String(r.other), what: String(r.what) });
  }
  return found;
}

/** The exact sum of each book's account balances. */
export async function bookSums(db: Db): Promise<Array<{ book: string; sum: bigint }>> {
  const dialect = dialectOf(db);
  const found = await rows(db, `select book, ${exactSum(dialect, 'balance_cents', 's')} from ledger_accounts group by book`);
  return found.map((r) => ({ book: String(r.book), sum: total(dialect, r, 's') }));
}

/**
 * Contributions whose original receipts do not match their status: one that succeeded since receipts
 * began (migration 017) needs exactly one; one that did not succeed, none.
 */
export async function receiptMismatches(db: Db): Promise<Array<{ id: number; status: string; receipts: number }>> {
  const found = await rows(
    db,
    `select id, status, receipts from (
      select c.id, c.status, c.completed_at, (select count(*) from receipts r where r.contribution_id = c.id and r.replaces_id is null) as receipts
      from contributions c) x
    where (status = 'success' and receipts <> 1 and completed_at >= (select applied_at from schema_migrations where name = '017_receipts'))
      or (status <> 'success' and receipts > 0)
    order by id limit 1000`,
  );
  return found.map((r) => ({ id: Number(r.id), status: String(r.status), receipts: Number(r.receipts) }));
}

/** Corrections that name a receipt of another contribution, book or donor (a receipt corrects only its own). */
export async function receiptChainBreaks(db: Db): Promise<Array<{ id: number; replaces_id: number }>> {
  const found = await rows(
    db,
    `select r.id, r.replaces_id from receipts r join receipts o on o.id = r.replaces_id
    where o.contribution_id <> r.contribution_id or o.book <> r.book or o.user_id <> r.user_id
    order by r.id limit 1000`,
  );
  return found.map((r) => ({ id: Number(r.id), replaces_id: Number(r.replaces_id) }));
}

/**
 * Apps and app connections whose user is not a live user (ADR 16): an app is registered by a live
 * user and a connection is a live donor's consent; a sandbox app acts for the donor's twin through
 * its book, never through a connection of its own.
 */
export async function appsOfSandboxUsers(db: Db): Promise<Array<{ what: 'app' | 'app connection'; id: number; user_id: number }>> {
  const found = await rows(
    db,
    `select what, id, user_id from (
      select 'app' as what, a.id, a.owner_id as user_id from apps a join users u on u.id = a.owner_id where u.book <> 'live'
      union all
      select 'app connection' as what, c.id, c.user_id from app_connections c join users u on u.id = c.user_id where u.book <> 'live') x
    order by what, id limit 1000`,
  );
  return found.map((r) => ({ what: r.what === 'app' ? 'app' : 'app connection', id: Number(r.id), user_id: Number(r.user_id) }));
}

/** App connections that counted more than the donor's monthly limit, or less than nothing. */
export async function connectionsPastLimit(db: Db): Promise<Array<{ id: number; spent: bigint; limit: bigint | null }>> {
  const found = await rows(
    db,
    `select id, cast(spent_cents as text) as spent, cast(monthly_limit_cents as text) as limit_cents from app_connections
    where spent_cents < 0 or (monthly_limit_cents is not null and spent_cents > monthly_limit_cents)
    order by id limit 1000`,
  );
  return found.map((r) => ({ id: Number(r.id), spent: big(r.spent), limit: r.limit_cents === null ? null : big(r.limit_cents) }));
}

/** Months in which an app counted more than the limit it was counted under, or less than nothing (app_spending, ADR 16). */
export async function monthsPastLimit(db: Db): Promise<Array<{ connection_id: number; month: string; spent: bigint; limit: bigint | null }>> {
  const found = await rows(
    db,
    `select connection_id, month, cast(spent_cents as text) as spent, cast(limit_cents as text) as limit_cents from app_spending
    where spent_cents < 0 or (limit_cents is not null and spent_cents > limit_cents)
    order by connection_id, month limit 1000`,
  );
  return found.map((r) => ({ connection_id: Number(r.connection_id), month: String(r.month), spent: big(r.spent), limit: r.limit_cents === null ? null : big(r.limit_cents) }));
}

/**
 * Connections whose tokens moved more money (donations, gifts and gift claims naming them) than
 * was counted against their limits, over all months: every cent an app moves is counted first.
 */
export async function appsMovedUncounted(db: Db): Promise<Array<{ connection_id: number; moved: bigint; counted: bigint }>> {
  const dialect = dialectOf(db);
  const moved = await rows(
    db,
    `select connection_id, ${exactSum(dialect, 'amount_cents', 's')} from (
      select app_connection_id as connection_id, amount_cents from donations where app_connection_id is not null
      union all
      select app_connection_id as connection_id, amount_cents from gifts where app_connection_id is not null) x
    group by connection_id`,
  );
  const counted = await rows(db, `select connection_id, ${exactSum(dialect, 'spent_cents', 's')} from app_spending group by connection_id`);
  const countedBy = new Map(counted.map((r) => [Number(r.connection_id), total(dialect, r, 's')]));
  return moved
    .map((r) => ({ connection_id: Number(r.connection_id), moved: total(dialect, r, 's'), counted: countedBy.get(Number(r.connection_id)) ?? 0n }))
    .filter((r) => r.moved > r.counted)
    .slice(0, 1000);
}

/**
 * The references the database does not always check: those PostgreSQL no longer checks on a
 * donation's hot path (migrations 023 and 066, ADR 9) and SQLite still does; a posting's entry and
 * account, which PostgreSQL checks per statement with triggers instead of keys (migration 025),
 * off while `session_replication_role` is `replica`; and a search word's organisation, which
 * SQLite does not check while an import loads (directory.store.ts bulkLoad). Each pair is
 * a column and the rows it must name. (That a posting's entry and account are in its book is
 * postingsAcrossBooks.)
 */
const REFERENCES: ReadonlyArray<{ table: string; column: string; target: string }> = [
  { table: 'donations', column: 'user_id', target: 'users' },
  { table: 'donations', column: 'fund_id', target: 'funds' },
  { table: 'donations', column: 'non_profit_id', target: 'non_profits' },
  { table: 'journal_entries', column: 'donation_id', target: 'donations' },
  { table: 'postings', column: 'entry_id', target: 'journal_entries' },
  ...['ledger_places', 'ledger_waiting'].map((table) => ({ table, column: 'entry_id', target: 'journal_entries' })),
  { table: 'postings', column: 'account_id', target: 'ledger_accounts' },
  { table: 'events', column: 'user_id', target: 'users' },
  { table: 'donation_counts', column: 'user_id', target: 'users' },
  { table: 'idempotency_keys', column: 'user_id', target: 'users' },
  { table: 'non_profit_words', column: 'non_profit_id', target: 'non_profits' },
];

/** Rows that name a row that does not exist (at most 1,000 per reference). */
export async function danglingReferences(db: Db): Promise<Array<{ table: string; column: string; target: string; value: number }>> {
  const found: Array<{ table: string; column: string; target: string; value: number }> = [];
  for (const { table, column, target } of REFERENCES) {
    const dangling = await rows(
      db,
      `select distinct r.${column} as value from ${table} r where r.${column} is not null and not exists (select 1 from ${target} t where t.id = r.${column}) limit 1000`,
    );
    for (const r of dangling) found.push({ table, column, target, value: Number(r.value) });
  }
  return found;
}

export interface CheckRun {
  finished_at: string;
  duration_ms: number;
  failed: number;
  checked: number;
  release: string;
}

/** Keeps one run of `almoner check` (its metrics: when the books were last proved). */
export async function recordCheckRun(db: Db, run: CheckRun): Promise<void> {
  await db.insertInto('check_runs').values(run).execute();
}

/** The latest run of `almoner check`, if any ran. */
export async function lastCheckRun(db: Db): Promise<CheckRun | undefined> {
  return db.selectFrom('check_runs').select(['finished_at', 'duration_ms', 'failed', 'checked', 'release']).orderBy('id', 'desc').limit(1).executeTakeFirst();
}
