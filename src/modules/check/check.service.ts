// `almoner check`: recomputes every invariant of rules §6 and 14 from the
// journal and the records, and reports each one that fails in words. What it
// reads, it reads exactly (check.store.ts); a check that cannot run reports
// why instead of stopping the rest.
import { memberProblems } from '../members/index.ts';
import { investingProblems } from '../portfolio/index.ts';
import { dialectOf } from '../../db/dialect.ts';
import { VERSION } from '../../version.ts';
import type { Deps } from '../../deps.ts';
import { HIDDEN_FROM_OTHERS } from '../donations/index.ts';
import { fundraiserProblems, matchProblems } from '../fundraisers/index.ts';
import { ledgerProblems } from '../ledger/index.ts';
import * as store from './check.store.ts';
import * as appStore from './check.apps.store.ts';
import * as paymentStore from './check.payments.store.ts';
import * as accountStore from './check.accounts.store.ts';

export interface CheckResult {
  name: string;
  failures: string[];
}

const HELD_DONATION = ['scheduled', 'approved'];
const PAID_DONATION = ['completed', 'check_mailed'];
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

async function balancedEntries(deps: Deps): Promise<string[]> {
  const sums = await store.entrySums(deps.db);
  const failures = sums.filter((r) => r.sum !== 0n || r.postings < 2).map((r) => `journal entry ${r.entry_id} sums to ${r.sum} over ${r.postings} postings`);
  return [...failures, ...(await store.entriesWithoutPostings(deps.db)).map((id) => `journal entry ${id} has no postings`)];
}

async function cachedBalances(deps: Deps): Promise<string[]> {
  const failures: string[] = [];
  for (const a of await store.accountsWithPostings(deps.db)) {
    const where = a.fund_id === null ? `outside account ${a.kind} (${a.book})` : `fund ${a.fund_id} ${a.kind}`;
    if (a.postings !== a.balance) failures.push(`${where}: balance ${a.balance} but its postings sum to ${a.postings}`);
    if (a.fund_id !== null && a.balance < 0n) failures.push(`${where} is below zero: ${a.balance}`);
    if (a.balance > SAFE || a.balance < -SAFE) failures.push(`${where}: balance ${a.balance} is beyond the exact range of an amount`);
  }
  return failures;
}

async function outsideAccountsOnce(deps: Deps): Promise<string[]> {
  return (await accountStore.outsideAccountTwins(deps.db)).map(
    (t) => `the ${t.book} book holds ${t.accounts} ${t.kind} accounts outside every fund: a movement may post to any of them`,
  );
}

async function entryCauses(deps: Deps): Promise<string[]> {
  return (await store.entriesWithoutCause(deps.db)).map((id) => `journal entry ${id} names no donation, gift, contribution, match or operator action`);
}

/**
 * Compares, for each donation, gift or contribution, the net of its postings
 * on each account kind with what its status says it should be.
 */
async function moneyByCause(deps: Deps, cause: store.Cause, expected: (r: { status: string; amount: bigint }) => Record<string, bigint>): Promise<string[]> {
  const net = await store.netByCause(deps.db, cause);
  const failures: string[] = [];
  for (const r of await store.causes(deps.db, cause)) {
    const n = net.get(r.id) ?? {};
    for (const [kind, want] of Object.entries(expected(r))) {
      if ((n[kind] ?? 0n) !== want) failures.push(`${cause} ${r.id} (${r.status}): ${n[kind] ?? 0n} cents on ${kind}, should be ${want}`);
    }
  }
  return failures;
}

const donationMoney = (deps: Deps) =>
  moneyByCause(deps, 'donation', (d) => ({
    reserved: HELD_DONATION.includes(d.status) ? d.amount : 0n,
    grants_paid: PAID_DONATION.includes(d.status) ? d.amount : 0n,
  }));

const giftMoney = (deps: Deps) => moneyByCause(deps, 'gift', (g) => ({ reserved: g.status === 'new' ? g.amount : 0n }));

const contributionMoney = (deps: Deps) =>
  moneyByCause(deps, 'contribution', (c) => ({
    pending_deposit: c.status === 'pending' ? c.amount : 0n,
    available: c.status === 'success' ? c.amount : 0n,
  }));

async function holds(deps: Deps): Promise<string[]> {
  return (await store.reservedAndHeld(deps.db, HELD_DONATION))
    .filter((f) => f.reserved !== f.held)
    .map((f) => `fund ${f.fund_id}: ${f.reserved} cents reserved, but its scheduled and approved donations, new gifts and live matches hold ${f.held}`);
}

/** Counts kept for the lists' meta.count: all donations for the owner; for others, the public ones that happened (rules §8). */
async function donationCounts(deps: Deps): Promise<string[]> {
  return (await store.donationCounts(deps.db, HIDDEN_FROM_OTHERS))
    .filter((c) => c.total !== c.actual || c.public_total !== c.actual_public)
    .map((c) => `user ${c.user_id}: counted ${c.total} donations (${c.public_total} shown to others), has ${c.actual} (${c.actual_public} shown to others)`);
}

/** Search lists a word's users biggest first by the size each word row carries. */
async function wordSizes(deps: Deps): Promise<string[]> {
  return (await store.wrongWordSizes(deps.db)).map((r) => `non-profit ${r.ein}: its word "${r.word}" has size ${r.size}, its income is ${r.income_amt}`);
}

/** rules §14: no journal entry has postings in two books; every posting is in its entry's and its account's book. */
async function entriesInOneBook(deps: Deps): Promise<string[]> {
  return (await store.postingsAcrossBooks(deps.db)).map(
    (r) => `journal entry ${r.entry_id} (${r.entry_book}) has a posting on account ${r.account_id} of the ${r.account_book} book`,
  );
}

/** rules §14: every object is in the book of its user, its fund and its fund's accounts; every entry in its cause's. */
async function objectsInTheirBook(deps: Deps): Promise<string[]> {
  return (await store.bookMismatches(deps.db)).map((r) => `${r.name} ${r.id} is in the ${r.own} book, ${r.what} in the ${r.other} book`);
}

/** Each book's accounts together hold nothing: money only moves within a book. */
async function booksSumToZero(deps: Deps): Promise<string[]> {
  return (await store.bookSums(deps.db)).filter((r) => r.sum !== 0n).map((r) => `the ${r.book} book's accounts sum to ${r.sum}, not 0`);
}

/** rules §13: each contribution that succeeded has exactly one original receipt; no other has one. */
async function receipts(deps: Deps): Promise<string[]> {
  return (await store.receiptMismatches(deps.db)).map((r) => `contribution ${r.id} (${r.status}) has ${r.receipts} original receipt${r.receipts === 1 ? '' : 's'}`);
}

/** rules §13: a correction replaces a receipt of its own contribution, in its own book. */
async function receiptChains(deps: Deps): Promise<string[]> {
  return (await store.receiptChainBreaks(deps.db)).map((r) => `receipt ${r.id} replaces receipt ${r.replaces_id} of another contribution, book or donor`);
}

/** Migrations 023, 025 and 066: the references a donation's write no longer has PostgreSQL check by foreign keys, and the search words an import writes unchecked on SQLite, proved here. */
async function references(deps: Deps): Promise<string[]> {
  return (await store.danglingReferences(deps.db)).map((r) => `${r.table}.${r.column} names ${r.target} ${r.value}, which does not exist`);
}

/**
 * ADR 16: apps and connections belong to live users, and no app gave past the limit its donor
 * set: each month counted within the limit it was counted under, and no app moved money
 * (donations, gifts, gift claims) it was not counted for.
 */
async function appsWithinTheirGrant(deps: Deps): Promise<string[]> {
  return [
    ...(await store.monthsPastLimit(deps.db)).map((r) =>
      r.spent < 0n
        ? `app connection ${r.connection_id} counted ${r.spent} cents in ${r.month}, less than nothing`
        : `app connection ${r.connection_id} gave ${r.spent} cents in ${r.month}, past its limit of ${r.limit}`,
    ),
    ...(await store.appsMovedUncounted(deps.db)).map((r) => `app connection ${r.connection_id} moved ${r.moved} cents in donations and gifts but was counted for ${r.counted}`),
    ...(await appStore.donationsOfAnotherApp(deps.db)).map(
      (r) => `donation ${r.id} was made by a token of app ${r.connection_app_id} but is told to ${r.app_id === null ? 'no app' : `app ${r.app_id}`}`,
    ),
    ...(await store.appsOfSandboxUsers(deps.db)).map((r) => `${r.what} ${r.id} belongs to user ${r.user_id}, who is not a live user`),
    ...(await store.connectionsPastLimit(deps.db)).map((r) =>
      r.spent < 0n ? `app connection ${r.id} counted ${r.spent} cents, less than nothing` : `app connection ${r.id} gave ${r.spent} cents this month, past its limit of ${r.limit}`,
    ),
  ];
}

/**
 * rules §17: every payment is exactly its grants, each grant's donation in the status its payment
 * says (open: approved; sent: completed by ACH or mailed by check; cashed: completed; returned or
 * voided: not completed, its money back, which donationMoney proves), and no payment went to an
 * organisation that screening had not cleared when its run was opened.
 */
async function payments(deps: Deps): Promise<string[]> {
  return [
    ...(await paymentStore.paymentTotalMismatches(deps.db)).map((r) => `payment ${r.id} ${r.what}`),
    ...(await paymentStore.grantsOutOfStep(deps.db)).map((r) =>
      r.donation_id === 0 ? `payment ${r.payment_id} ${r.what}` : `donation ${r.donation_id} of payment ${r.payment_id} ${r.what}`,
    ),
  ];
}

/** The latest run of `almoner check` (metrics). */
export const lastCheckRun = (deps: Deps) => store.lastCheckRun(deps.lookups);

/** Runs every check and keeps the run (check_runs): when it ended, how long it took, how many invariants failed. */
export async function runAndRecordCheck(deps: Deps): Promise<CheckResult[]> {
  const started = performance.now();
  const results = await runCheck(deps);
  await store.recordCheckRun(deps.db, {
    finished_at: deps.clock.now().toISOString(),
    duration_ms: Math.round(performance.now() - started),
    failed: results.filter((r) => r.failures.length > 0).length,
    checked: results.length,
    release: VERSION,
  });
  return results;
}

/** A check the bank paid after it was voided is money out that the books carry as an exception until it is resolved (rules §17). */
async function paymentExceptions(deps: Deps): Promise<string[]> {
  return (await paymentStore.openPaymentExceptions(deps.db)).map(
    (x) => `payment ${x.payment_id} (${x.book}): the bank paid its voided check (${x.amount_cents} cents, ${x.paid_date}); resolve exception ${x.id}: recovered or charged`,
  );
}

export async function runCheck(deps: Deps): Promise<CheckResult[]> {
  const checks: Array<[string, (deps: Deps) => Promise<string[]>]> = [
    ['every journal entry balances', balancedEntries],
    ['every balance equals its postings; no fund account below zero', cachedBalances],
    ['every journal entry names its cause', entryCauses],
    ['each book holds one of each account outside every fund', outsideAccountsOnce],
    ['no journal entry has postings in two books', entriesInOneBook],
    ['every object is in the book of its user, fund and accounts', objectsInTheirBook],
    ["each book's accounts sum to zero", booksSumToZero],
    ['every donation holds or has paid exactly what its status says', donationMoney],
    ['every gift holds exactly what its status says', giftMoney],
    ['every contribution brought exactly what its status says', contributionMoney],
    ["every fund's reserved money matches its held donations and gifts", holds],
    ["every user's donation count is right", donationCounts],
    ['every fundraiser has raised what the journal says its donations hold or paid, each for its own organisation', (d) => fundraiserProblems(d.db)],
    ['every match holds its cap less what it matched, within its cap, each of its donations for one of its fundraiser', (d) => matchProblems(d.db)],
    ["every search word carries its organisation's size", wordSizes],
    ['every contribution that succeeded has one receipt, no other has one', receipts],
    ['every corrected receipt replaces one of its own contribution', receiptChains],
    ['every app acts for a live user, within the limit its donor set', appsWithinTheirGrant],
    ["every payment is its grants, each in its payment's status, none to an organisation not cleared", payments],
    ['no check the bank paid after it was voided is left unresolved', paymentExceptions],
    ["every fund's units are its portfolio balance at the last unit price; units outstanding add up; every fee is the formula's", (d) => investingProblems(d.db)],
    ['everyone acts on a fund they belong to; every fund keeps an organizer; every movement names a member whose role allowed it then', (d) => memberProblems(d.db)],
    [
      "every journal entry matches its hash; each book's log runs from its first entry without a gap, its chain unbroken; every checkpoint is signed and its root is the log's",
      ledgerProblems,
    ],
    [
      "every donation's user, fund and non-profit, every entry's donation, every posting's entry and account, every event's user and every search word's organisation exist",
      references,
    ],
  ];
  const results: CheckResult[] = [];
  // Each check reads one snapshot: on a live platform a donation committed between two of its
  // statements would otherwise look like money without its journal, or a journal without its cause.
  const snapshotted = (fn: (deps: Deps) => Promise<string[]>) =>
    dialectOf(deps.db).readSnapshot(deps.db, deps.reads, (snapshot) => fn({ ...deps, db: snapshot, reads: snapshot, lookups: snapshot }));
  for (const [name, fn] of checks) {
    try {
      results.push({ name, failures: await snapshotted(fn) });
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
