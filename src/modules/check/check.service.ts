// `almoner check`: recomputes every invariant of DECISIONS 6 and 14 from the
// journal and the records, and reports each one that fails in words.
//
// It reads what it checks as it is, however wrong: every sum is exact (a
// PostgreSQL numeric, or on SQLite two 32-bit halves summed apart, never a
// float and never an overflow), every stored amount is read as text into a
// BigInt, and a check that cannot run reports why instead of stopping the rest.
import { sql } from 'kysely';
import type { Deps } from '../../deps.ts';
import type { Engine } from '../../db/database.ts';
import { HIDDEN_FROM_OTHERS } from '../donations/index.ts';

export interface CheckResult {
  name: string;
  failures: string[];
}

const HELD_DONATION = ['scheduled', 'approved'];
const PAID_DONATION = ['completed', 'check_mailed'];
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * `sum(column)` as exact text columns `<as>_hi` and `<as>_lo`: read them back
 * with `total`. SQLite's sum() of integers fails on overflow, so it sums the
 * high and low 32 bits apart (each fits for up to 2^31 rows).
 */
function exactSum(engine: Engine, column: string, as: string): string {
  return engine === 'postgres'
    ? `cast(coalesce(sum(${column}), 0) as text) as ${as}_hi, '0' as ${as}_lo`
    : `cast(coalesce(sum(${column} >> 32), 0) as text) as ${as}_hi, cast(coalesce(sum(${column} & 4294967295), 0) as text) as ${as}_lo`;
}

function total(engine: Engine, row: Record<string, unknown>, as: string): bigint {
  const hi = BigInt(String(row[`${as}_hi`] ?? '0'));
  const lo = BigInt(String(row[`${as}_lo`] ?? '0'));
  return engine === 'postgres' ? hi : (hi << 32n) + lo;
}

async function rows(deps: Deps, query: string): Promise<Array<Record<string, unknown>>> {
  return (await sql.raw<Record<string, unknown>>(query).execute(deps.db)).rows;
}

const big = (value: unknown): bigint => BigInt(String(value ?? '0'));
const list = (values: readonly string[]): string => values.map((v) => `'${v}'`).join(',');

async function balancedEntries(deps: Deps): Promise<string[]> {
  const e = deps.engine;
  const sums = await rows(deps, `select entry_id, count(*) as n, ${exactSum(e, 'amount_cents', 's')} from postings group by entry_id`);
  const failures = sums.filter((r) => total(e, r, 's') !== 0n || Number(r.n) < 2).map((r) => `journal entry ${r.entry_id} sums to ${total(e, r, 's')} over ${r.n} postings`);
  const empty = await rows(deps, 'select j.id from journal_entries j where not exists (select 1 from postings p where p.entry_id = j.id)');
  return [...failures, ...empty.map((r) => `journal entry ${r.id} has no postings`)];
}

async function cachedBalances(deps: Deps): Promise<string[]> {
  const e = deps.engine;
  const accounts = await rows(deps, 'select id, fund_id, kind, book, cast(balance_cents as text) as balance from ledger_accounts');
  const sums = await rows(deps, `select account_id, ${exactSum(e, 'amount_cents', 's')} from postings group by account_id`);
  const byAccount = new Map(sums.map((r) => [Number(r.account_id), total(e, r, 's')]));
  const failures: string[] = [];
  for (const r of accounts) {
    const where = r.fund_id === null ? `outside account ${r.kind} (${r.book})` : `fund ${r.fund_id} ${r.kind}`;
    const balance = big(r.balance);
    const sum = byAccount.get(Number(r.id)) ?? 0n;
    if (sum !== balance) failures.push(`${where}: balance ${balance} but its postings sum to ${sum}`);
    if (r.fund_id !== null && balance < 0n) failures.push(`${where} is below zero: ${balance}`);
    if (balance > SAFE || balance < -SAFE) failures.push(`${where}: balance ${balance} is beyond the exact range of an amount`);
  }
  return failures;
}

async function entryCauses(deps: Deps): Promise<string[]> {
  const found = await rows(deps, 'select id from journal_entries where donation_id is null and gift_id is null and contribution_id is null and audit_id is null');
  return found.map((r) => `journal entry ${r.id} names no donation, gift, contribution or operator action`);
}

type Cause = 'donation_id' | 'gift_id' | 'contribution_id';

/** Net postings per (cause, account kind), exact. */
async function netByCause(deps: Deps, cause: Cause): Promise<Map<number, Record<string, bigint>>> {
  const e = deps.engine;
  const found = await rows(
    deps,
    `select j.${cause} as cause_id, a.kind, ${exactSum(e, 'p.amount_cents', 'net')}
    from postings p join journal_entries j on j.id = p.entry_id join ledger_accounts a on a.id = p.account_id
    where j.${cause} is not null group by j.${cause}, a.kind`,
  );
  const net = new Map<number, Record<string, bigint>>();
  for (const r of found) {
    const entry = net.get(Number(r.cause_id)) ?? {};
    entry[String(r.kind)] = (entry[String(r.kind)] ?? 0n) + total(e, r, 'net');
    net.set(Number(r.cause_id), entry);
  }
  return net;
}

type Caused = { id: number; status: string; amount: bigint };

/**
 * Compares, for each donation, gift or contribution, the net of its postings
 * on each account kind with what its status says it should be.
 */
async function moneyByCause(deps: Deps, cause: Cause, table: string, name: string, expected: (r: Caused) => Record<string, bigint>): Promise<string[]> {
  const net = await netByCause(deps, cause);
  const records = (await rows(deps, `select id, status, cast(amount_cents as text) as amount from ${table}`)).map((r) => ({
    id: Number(r.id),
    status: String(r.status),
    amount: big(r.amount),
  }));
  const failures: string[] = [];
  for (const r of records) {
    const n = net.get(r.id) ?? {};
    for (const [kind, want] of Object.entries(expected(r))) {
      if ((n[kind] ?? 0n) !== want) failures.push(`${name} ${r.id} (${r.status}): ${n[kind] ?? 0n} cents on ${kind}, should be ${want}`);
    }
  }
  return failures;
}

const donationMoney = (deps: Deps) =>
  moneyByCause(deps, 'donation_id', 'donations', 'donation', (d) => ({
    reserved: HELD_DONATION.includes(d.status) ? d.amount : 0n,
    grants_paid: PAID_DONATION.includes(d.status) ? d.amount : 0n,
  }));

const giftMoney = (deps: Deps) => moneyByCause(deps, 'gift_id', 'gifts', 'gift', (g) => ({ reserved: g.status === 'new' ? g.amount : 0n }));

const contributionMoney = (deps: Deps) =>
  moneyByCause(deps, 'contribution_id', 'contributions', 'contribution', (c) => ({
    pending_deposit: c.status === 'pending' ? c.amount : 0n,
    available: c.status === 'success' ? c.amount : 0n,
  }));

async function holds(deps: Deps): Promise<string[]> {
  const e = deps.engine;
  const reserved = await rows(deps, `select fund_id, cast(balance_cents as text) as balance from ledger_accounts where kind = 'reserved' and fund_id is not null`);
  const held = [
    ...(await rows(deps, `select fund_id, ${exactSum(e, 'amount_cents', 's')} from donations where status in (${list(HELD_DONATION)}) group by fund_id`)),
    ...(await rows(deps, `select fund_id, ${exactSum(e, 'amount_cents', 's')} from gifts where status = 'new' group by fund_id`)),
  ];
  const expected = new Map<number, bigint>();
  for (const r of held) expected.set(Number(r.fund_id), (expected.get(Number(r.fund_id)) ?? 0n) + total(e, r, 's'));
  return reserved
    .filter((r) => big(r.balance) !== (expected.get(Number(r.fund_id)) ?? 0n))
    .map((r) => `fund ${r.fund_id}: ${r.balance} cents reserved, but its scheduled and approved donations and new gifts hold ${expected.get(Number(r.fund_id)) ?? 0n}`);
}

/** Counts kept for the lists' meta.count: all donations for the owner; for others, the public ones that happened (DECISIONS 8). */
async function donationCounts(deps: Deps): Promise<string[]> {
  const found = await rows(
    deps,
    `select u.id, c.total, c.public_total,
      (select count(*) from donations d where d.user_id = u.id) as actual,
      (select count(*) from donations d where d.user_id = u.id and d.visibility = 'public' and d.status not in (${list(HIDDEN_FROM_OTHERS)})) as actual_public
    from users u left join donation_counts c on c.user_id = u.id`,
  );
  return found
    .filter((c) => Number(c.total ?? 0) !== Number(c.actual) || Number(c.public_total ?? 0) !== Number(c.actual_public))
    .map((c) => `user ${c.id}: counted ${c.total ?? 0} donations (${c.public_total ?? 0} shown to others), has ${c.actual} (${c.actual_public} shown to others)`);
}

/** Search lists a word's users biggest first by the size each word row carries. */
async function wordSizes(deps: Deps): Promise<string[]> {
  const found = await rows(
    deps,
    `select n.ein, w.word, w.size, n.income_amt from non_profit_words w join non_profits n on n.id = w.non_profit_id
    where w.size <> n.income_amt limit 1000`,
  );
  return found.map((r) => `non-profit ${r.ein}: its word "${r.word}" has size ${r.size}, its income is ${r.income_amt}`);
}

/** DECISIONS 14: no journal entry has postings in two books; every posting is in its entry's and its account's book. */
async function entriesInOneBook(deps: Deps): Promise<string[]> {
  const found = await rows(
    deps,
    `select p.entry_id, j.book as entry_book, p.book as posting_book, a.book as account_book, a.id as account_id
    from postings p join journal_entries j on j.id = p.entry_id join ledger_accounts a on a.id = p.account_id
    where p.book <> j.book or a.book <> j.book order by p.entry_id limit 1000`,
  );
  return found.map((r) => `journal entry ${r.entry_id} (${r.entry_book}) has a posting on account ${r.account_id} of the ${r.account_book} book`);
}

/** DECISIONS 14: every object is in the book of its user, its fund and its fund's accounts; every entry in its cause's. */
async function objectsInTheirBook(deps: Deps): Promise<string[]> {
  const mismatches: Array<[string, string]> = [
    ['fund', `select f.id, f.book as own, u.book as other, 'its user' as what from funds f join users u on u.id = f.user_id where f.book <> u.book`],
    ['ledger account', `select a.id, a.book as own, f.book as other, 'its fund' as what from ledger_accounts a join funds f on f.id = a.fund_id where a.book <> f.book`],
    ...['donations', 'gifts', 'contributions', 'scheduled_donations'].flatMap((table): Array<[string, string]> => [
      [
        table.replace(/s$/, '').replace('_', ' '),
        `select o.id, o.book as own, f.book as other, 'its fund' as what from ${table} o join funds f on f.id = o.fund_id where o.book <> f.book`,
      ],
      [
        table.replace(/s$/, '').replace('_', ' '),
        `select o.id, o.book as own, u.book as other, 'its user' as what from ${table} o join users u on u.id = o.user_id where o.book <> u.book`,
      ],
    ]),
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
  const failures: string[] = [];
  for (const [name, query] of mismatches) {
    for (const r of await rows(deps, `${query} limit 1000`)) failures.push(`${name} ${r.id} is in the ${r.own} book, ${r.what} in the ${r.other} book`);
  }
  return failures;
}

/** Each book's accounts together hold nothing: money only moves within a book. */
async function booksSumToZero(deps: Deps): Promise<string[]> {
  const e = deps.engine;
  const found = await rows(deps, `select book, ${exactSum(e, 'balance_cents', 's')} from ledger_accounts group by book`);
  return found.filter((r) => total(e, r, 's') !== 0n).map((r) => `the ${r.book} book's accounts sum to ${total(e, r, 's')}, not 0`);
}

export async function runCheck(deps: Deps): Promise<CheckResult[]> {
  const checks: Array<[string, (deps: Deps) => Promise<string[]>]> = [
    ['every journal entry balances', balancedEntries],
    ['every balance equals its postings; no fund account below zero', cachedBalances],
    ['every journal entry names its cause', entryCauses],
    ['no journal entry has postings in two books', entriesInOneBook],
    ['every object is in the book of its user, fund and accounts', objectsInTheirBook],
    ["each book's accounts sum to zero", booksSumToZero],
    ['every donation holds or has paid exactly what its status says', donationMoney],
    ['every gift holds exactly what its status says', giftMoney],
    ['every contribution brought exactly what its status says', contributionMoney],
    ["every fund's reserved money matches its held donations and gifts", holds],
    ["every user's donation count is right", donationCounts],
    ["every search word carries its organisation's size", wordSizes],
  ];
  const results: CheckResult[] = [];
  for (const [name, fn] of checks) {
    try {
      results.push({ name, failures: await fn(deps) });
    } catch (error) {
      // A check that cannot run is a failure to report, never a reason to stop the others.
      results.push({ name, failures: [`could not be checked: ${(error as Error).message}`] });
    }
  }
  return results;
}

export function formatCheck(results: CheckResult[]): { ok: boolean; text: string } {
  const lines: string[] = [];
  let ok = true;
  for (const r of results) {
    if (r.failures.length === 0) {
      lines.push(`ok    ${r.name}`);
    } else {
      ok = false;
      lines.push(`FAIL  ${r.name} (${r.failures.length})`);
      for (const f of r.failures.slice(0, 50)) lines.push(`        ${f}`);
      if (r.failures.length > 50) lines.push(`        ... and ${r.failures.length - 50} more`);
    }
  }
  lines.push(ok ? 'All invariants hold.' : 'Some invariants do not hold.');
  return { ok, text: `${lines.join('\n')}\n` };
}
