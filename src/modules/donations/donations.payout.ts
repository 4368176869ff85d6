// A payment run's donations paid out together as it is submitted (rules §17): each one moved
// approved -> completed (ACH) or check_mailed (a check), its hold paid out of the donor's
// reserved money to the grants-paid account by its own balanced journal entry, its event and its
// audit entry: what applyEventIn does for one donation, written a thousand rows to a statement.
// Its caller holds the run; the funds are locked here in ascending order (the lock order
// everywhere), and a donation that is not approved any more fails the whole submission.
import type { Trx } from '../../db/database.ts';
import type { Book } from '../../shared/book.ts';
import { runStatements } from '../../db/bulk.ts';
import { conflict } from '../../shared/errors.ts';
import { assert } from '../../shared/assert.ts';
import { LogTail, entryStatements, lockFundsAccounts, outsideAccountId, reserveEntryIds } from '../ledger/index.ts';
import { recordEvents } from '../events/index.ts';
import { recordAudits } from '../audit/index.ts';
import { DONATION_TRANSITIONS } from './donations.ts';
import { donationsToPayOut, markPaidOut } from './donations.payout.store.ts';

/** One donation a submitted payment carries, and how it went: by ACH (`pay`) or in a check (`mail_check`). */
export interface PayOut {
  donation_id: number;
  event: 'pay' | 'mail_check';
}

/** Pays out every donation of `payouts` in the caller's transaction, or throws conflict invalid_transition and moves none. */
export async function payOutMany(trx: Trx, book: Book, payouts: readonly PayOut[], actor: string, at: string): Promise<void> {
  if (payouts.length === 0) return;
  const eventOf = new Map(payouts.map((p) => [p.donation_id, p.event] as const));
  assert(eventOf.size === payouts.length, 'a donation is paid out once');
  const donations = await donationsToPayOut(trx, book, [...eventOf.keys()]);
  assert(donations.length === payouts.length, 'a payment names donations of its own book');
  const stale = donations.find((d) => d.status !== 'approved');
  if (stale !== undefined) throw conflict('invalid_transition', `donation ${stale.id} is ${stale.status}, not approved: its payment cannot be sent`);
  const funds = await lockFundsAccounts(
    trx,
    donations.map((d) => d.fund_id),
  );
  for (const event of ['pay', 'mail_check'] as const) {
    const ids = donations.filter((d) => eventOf.get(d.id) === event).map((d) => d.id);
    const moved = await markPaidOut(trx, ids, DONATION_TRANSITIONS[event].to === 'completed' ? 'completed' : 'check_mailed', at);
    if (moved !== ids.length) throw conflict('invalid_transition', 'a donation of this run moved while it was submitted: submit it again');
  }
  const grantsPaid = await outsideAccountId(trx, 'grants_paid', book);
  const entryIds = await reserveEntryIds(trx, donations.length);
  const moves = donations.map((d) => ({ d, event: eventOf.get(d.id) as PayOut['event'] }));
  const entries = moves.map(({ d, event }, i) => {
    const accounts = funds.get(d.fund_id);
    assert(accounts !== undefined && accounts.book === book, "a donation's fund is in its book");
    return {
      id: entryIds[i] as number,
      cause: { book, memo: `donation ${event.replace('_', ' ')}`, donation_id: d.id },
      movements: [{ from_account_id: accounts.ids.reserved, to_account_id: grantsPaid, amount_cents: d.amount_cents }],
    };
  });
  await runStatements(trx, entryStatements(entries, at, await LogTail.open(trx, [book])));
  await recordEvents(
    trx,
    moves.map(({ d, event }) => ({
      user_id: d.user_id,
      type: 'donation.updated' as const,
      object_type: 'donation',
      object_id: d.id,
      data: { status: DONATION_TRANSITIONS[event].to, previous_status: 'approved' },
      at,
    })),
  );
  await recordAudits(
    trx,
    moves.map(({ d, event }) => ({
      book,
      actor,
      action: `donation.${event}`,
      object_type: 'donation',
      object_id: d.id,
      before: { status: 'approved' },
      after: { status: DONATION_TRANSITIONS[event].to },
      at,
    })),
  );
}
