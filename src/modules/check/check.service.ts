// `almoner check`: recomputes every invariant of DECISIONS 6 from the
// journal and the records, and reports each one that fails in words.
import { sql } from 'kysely';
import type { Deps } from '../../deps.ts';

export interface CheckResult {
  name: string;
  failures: string[];
}

const HELD_DONATION = ['scheduled', 'approved'];
const PAID_DONATION = ['completed', 'check_mailed'];

async function balancedEntries(deps: Deps): Promise<string[]> {
  const rows = await deps.db.selectFrom('postings').select(['entry_id', (eb) => eb.fn.sum<number>('amount_cents').as('sum'), (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('entry_id').execute();
  const failures = rows.filter((r) => Number(r.sum) !== 0 || Number(r.n) < 2).map((r) => `journal entry ${r.entry_id} sums to ${r.sum} over ${r.n} postings`);
  const empty = await deps.db.selectFrom('journal_entries as j').leftJoin('postings as p', 'p.entry_id', 'j.id').select('j.id').where('p.id', 'is', null).execute();
  return [...failures, ...empty.map((e) => `journal entry ${e.id} has no postings`)];
}

async function cachedBalances(deps: Deps): Promise<string[]> {
  const rows = await deps.db.selectFrom('ledger_accounts as a').leftJoin('postings as p', 'p.account_id', 'a.id')
    .select(['a.id', 'a.fund_id', 'a.kind', 'a.balance_cents', (eb) => eb.fn.coalesce(eb.fn.sum<number>('p.amount_cents'), sql<number>`0`).as('sum')])
    .groupBy(['a.id', 'a.fund_id', 'a.kind', 'a.balance_cents']).execute();
  const failures: string[] = [];
  for (const r of rows) {
    const where = r.fund_id === null ? `outside account ${r.kind}` : `fund ${r.fund_id} ${r.kind}`;
    if (Number(r.sum) !== r.balance_cents) failures.push(`${where}: balance ${r.balance_cents} but its postings sum to ${r.sum}`);
    if (r.fund_id !== null && r.balance_cents < 0) failures.push(`${where} is below zero: ${r.balance_cents}`);
  }
  return failures;
}

async function entryCauses(deps: Deps): Promise<string[]> {
  const rows = await deps.db.selectFrom('journal_entries').select('id')
    .where('donation_id', 'is', null).where('gift_id', 'is', null).where('contribution_id', 'is', null).where('audit_id', 'is', null).execute();
  return rows.map((r) => `journal entry ${r.id} names no donation, gift, contribution or operator action`);
}

/** Net postings per (cause, account kind). */
async function netByCause(deps: Deps, cause: 'donation_id' | 'gift_id' | 'contribution_id') {
  const rows = await deps.db.selectFrom('postings as p').innerJoin('journal_entries as j', 'j.id', 'p.entry_id').innerJoin('ledger_accounts as a', 'a.id', 'p.account_id')
    .select([`j.${cause} as cause_id`, 'a.kind', (eb) => eb.fn.sum<number>('p.amount_cents').as('net')])
    .where(`j.${cause}`, 'is not', null).groupBy([`j.${cause}`, 'a.kind']).execute();
  const net = new Map<number, Record<string, number>>();
  for (const r of rows) {
    const entry = net.get(Number(r.cause_id)) ?? {};
    entry[r.kind] = (entry[r.kind] ?? 0) + Number(r.net);
    net.set(Number(r.cause_id), entry);
  }
  return net;
}

type Caused = { id: number; status: string; amount_cents: number };

/**
 * Compares, for each donation, gift or contribution, the net of its postings
 * on each account kind with what its status says it should be.
 */
async function moneyByCause(deps: Deps, cause: 'donation_id' | 'gift_id' | 'contribution_id', name: string, records: Caused[], expected: (r: Caused) => Record<string, number>): Promise<string[]> {
  const net = await netByCause(deps, cause);
  const failures: string[] = [];
  for (const r of records) {
    const n = net.get(r.id) ?? {};
    for (const [kind, want] of Object.entries(expected(r))) {
      if ((n[kind] ?? 0) !== want) failures.push(`${name} ${r.id} (${r.status}): ${n[kind] ?? 0} cents on ${kind}, should be ${want}`);
    }
  }
  return failures;
}

async function donationMoney(deps: Deps): Promise<string[]> {
  const donations = await deps.db.selectFrom('donations').select(['id', 'status', 'amount_cents']).execute();
  return moneyByCause(deps, 'donation_id', 'donation', donations, (d) => ({
    reserved: HELD_DONATION.includes(d.status) ? d.amount_cents : 0,
    grants_paid: PAID_DONATION.includes(d.status) ? d.amount_cents : 0,
  }));
}

async function giftMoney(deps: Deps): Promise<string[]> {
  const gifts = await deps.db.selectFrom('gifts').select(['id', 'status', 'amount_cents']).execute();
  return moneyByCause(deps, 'gift_id', 'gift', gifts, (g) => ({ reserved: g.status === 'new' ? g.amount_cents : 0 }));
}

async function contributionMoney(deps: Deps): Promise<string[]> {
  const contributions = await deps.db.selectFrom('contributions').select(['id', 'status', 'amount_cents']).execute();
  return moneyByCause(deps, 'contribution_id', 'contribution', contributions, (c) => ({
    pending_deposit: c.status === 'pending' ? c.amount_cents : 0,
    available: c.status === 'success' ? c.amount_cents : 0,
  }));
}

async function holds(deps: Deps): Promise<string[]> {
  const reserved = await deps.db.selectFrom('ledger_accounts').select(['fund_id', 'balance_cents']).where('kind', '=', 'reserved').execute();
  const donations = await deps.db.selectFrom('donations').select(['fund_id', (eb) => eb.fn.sum<number>('amount_cents').as('s')])
    .where('status', 'in', HELD_DONATION).groupBy('fund_id').execute();
  const gifts = await deps.db.selectFrom('gifts').select(['fund_id', (eb) => eb.fn.sum<number>('amount_cents').as('s')])
    .where('status', '=', 'new').groupBy('fund_id').execute();
  const expected = new Map<number, number>();
  for (const r of [...donations, ...gifts]) expected.set(r.fund_id, (expected.get(r.fund_id) ?? 0) + Number(r.s));
  return reserved.filter((r) => r.balance_cents !== (expected.get(r.fund_id as number) ?? 0))
    .map((r) => `fund ${r.fund_id}: ${r.balance_cents} cents reserved, but its scheduled and approved donations and new gifts hold ${expected.get(r.fund_id as number) ?? 0}`);
}

async function donationCounts(deps: Deps): Promise<string[]> {
  const rows = await deps.db.selectFrom('users as u').leftJoin('donation_counts as c', 'c.user_id', 'u.id')
    .select(['u.id', 'c.total', 'c.public_total',
      (eb) => eb.selectFrom('donations').whereRef('donations.user_id', '=', 'u.id').select((e) => e.fn.countAll<number>().as('n')).as('actual'),
      (eb) => eb.selectFrom('donations').whereRef('donations.user_id', '=', 'u.id').where('visibility', '=', 'public').select((e) => e.fn.countAll<number>().as('n')).as('actual_public')])
    .execute();
  return rows.filter((c) => Number(c.total ?? 0) !== Number(c.actual) || Number(c.public_total ?? 0) !== Number(c.actual_public))
    .map((c) => `user ${c.id}: counted ${c.total ?? 0} donations (${c.public_total ?? 0} public), has ${c.actual} (${c.actual_public} public)`);
}

/** Search lists a word's users biggest first by the size each word row carries. */
async function wordSizes(deps: Deps): Promise<string[]> {
  const rows = await deps.db.selectFrom('non_profit_words as w').innerJoin('non_profits as n', 'n.id', 'w.non_profit_id')
    .select(['n.ein', 'w.word', 'w.size', 'n.income_amt']).whereRef('w.size', '!=', 'n.income_amt').limit(1000).execute();
  return rows.map((r) => `non-profit ${r.ein}: its word "${r.word}" has size ${r.size}, its income is ${r.income_amt}`);
}

export async function runCheck(deps: Deps): Promise<CheckResult[]> {
  const checks: Array<[string, (deps: Deps) => Promise<string[]>]> = [
    ['every journal entry balances', balancedEntries],
    ['every balance equals its postings; no fund account below zero', cachedBalances],
    ['every journal entry names its cause', entryCauses],
    ['every donation holds or has paid exactly what its status says', donationMoney],
    ['every gift holds exactly what its status says', giftMoney],
    ['every contribution brought exactly what its status says', contributionMoney],
    ['every fund\'s reserved money matches its held donations and gifts', holds],
    ['every user\'s donation count is right', donationCounts],
    ['every search word carries its organisation\'s size', wordSizes],
  ];
  const results: CheckResult[] = [];
  for (const [name, fn] of checks) results.push({ name, failures: await fn(deps) });
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
