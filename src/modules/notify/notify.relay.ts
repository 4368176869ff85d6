// The relay (rules §12, 15): events committed by the money's transactions
// are turned, once, into webhook deliveries (the object in its owner's form)
// and mail (the messages rules §15 lists), in one transaction that marks
// them relayed. A relay that dies before committing leaves them for the next;
// two relays never take one event (claimUnrelayed).
import type { Deps } from '../../deps.ts';
import type { Caller } from '../../shared/caller.ts';
import { AppError } from '../../shared/errors.ts';
import { claimEvents, markRelayed, unrelayedEvents, type RelayEvent } from '../events/index.ts';
import { fanOut, messageIdOf, type Rendered } from '../webhooks/index.ts';
import { messages, queueMail, type Outgoing } from '../mail/index.ts';
import { ownDonationForms } from '../donations/index.ts';
import { giftForNotice } from '../gifts/index.ts';
import { declaredForm, receiptOf } from '../contributions/index.ts';
import { accountEmail } from '../accounts/index.ts';
import { usdOfDollars } from '../../shared/money.ts';

const callerFor = (e: RelayEvent): Caller => ({
  user_id: e.user_id,
  fund_id: 0,
  actor_id: e.user_id,
  role: 'organizer',
  key_id: 0,
  mode: e.book,
  book: e.book,
  user_status: 'active',
  last_used_at: null,
});

type Donations = Awaited<ReturnType<typeof ownDonationForms>>;

/** The object an event is about, in its owner's form; and the mail it causes (live only: the sandbox e-mails nobody). */
async function render(deps: Deps, e: RelayEvent, donations: Donations): Promise<{ data: unknown; mail: Outgoing[] }> {
  const data = JSON.parse(e.data) as Record<string, unknown>;
  const caller = callerFor(e);
  const base = deps.config.publicUrl;
  const mail: Outgoing[] = [];
  const send = (kind: string, recipient: string | null | undefined, m: messages.Message) => {
    if (recipient !== null && recipient !== undefined && e.book === 'live') mail.push({ ...m, kind, recipient, event_id: e.id });
  };
  try {
    const read = e.object_type === 'donation' ? donations.get(e.object_id) : undefined;
    if (read !== undefined && read.user_id === e.user_id) {
      const donation = read.form;
      if (e.type === 'donation.updated' && data.status === 'check_mailed') {
        send(
          'donation_check_mailed',
          await accountEmail(deps, e.user_id),
          messages.checkMailed({ nonProfit: donation.non_profit.name, amount: donation.amount, url: `${base}/dashboard#donations` }),
        );
      }
      if (e.type === 'donation.updated' && data.status === 'not_completed' && typeof data.returned === 'string') {
        send(
          'donation_returned',
          await accountEmail(deps, e.user_id),
          messages.grantReturned({ nonProfit: donation.non_profit.name, amount: donation.amount, url: `${base}/dashboard`, why: data.returned }),
        );
      }
      if (e.type === 'donation.updated' && data.status === 'completed') {
        send(
          'donation_completed',
          await accountEmail(deps, e.user_id),
          messages.donationCompleted({ nonProfit: donation.non_profit.name, amount: donation.amount, url: `${base}/dashboard#donations` }),
        );
      }
      return { data: donation, mail };
    }
    if (e.object_type === 'gift') {
      const gift = await giftForNotice(deps, e.book, e.object_id);
      if (e.type === 'gift.created') {
        send(
          'gift_received',
          gift.email,
          messages.giftToRecipient({ giverName: gift.giver_name, recipientName: gift.form.name, amount: gift.form.amount, message: gift.form.message, url: gift.form.url }),
        );
      } else if (data.status === 'accepted' || data.status === 'claimed' || data.status === 'denied') {
        send(
          `gift_${data.status}`,
          await accountEmail(deps, e.user_id),
          messages.giftOutcomeToGiver({ recipientName: gift.form.name, amount: gift.form.amount, outcome: data.status, url: `${base}/dashboard#gifts` }),
        );
      }
      return { data: gift.form, mail };
    }
    if (e.object_type === 'contribution') {
      const contribution = await declaredForm(deps, caller, e.object_id);
      // Recorded as success at once (an operator's record) or moved there: either way its receipt is issued now.
      if (data.status === 'success') {
        const receipt = await receiptOf(deps, caller, e.object_id);
        const what = receipt.amount_usd !== null ? usdOfDollars(receipt.amount_usd) : (receipt.description ?? '');
        send(
          'contribution_receipt',
          await accountEmail(deps, e.user_id),
          messages.contributionReceipt({ receipt: receipt.number, what, url: `${base}/money/${e.object_id}`, sponsor: receipt.sponsor.name }),
        );
      }
      return { data: contribution, mail };
    }
  } catch (error) {
    // The object is gone (a user forgotten) or has no receipt (before receipts began): the event's own record stands in.
    if (!(error instanceof AppError) || error.kind !== 'not_found') throw error;
  }
  return { data: { id: e.object_id, object: e.object_type, ...data }, mail };
}

/** The body of an event's webhook delivery: its type, its time, and the object it is about as rendered. */
const payloadOf = (e: RelayEvent, data: unknown): string => JSON.stringify({ type: e.type, timestamp: e.created_at, data });

/**
 * What a webhook delivery of the event carries, rendered now as the relay renders it: its
 * `webhook-id` and its body, byte for byte (`alms listen` forwards these to a local handler).
 */
export async function deliveryOf(deps: Deps, e: RelayEvent): Promise<{ webhook_id: string; body: string }> {
  const donations: Donations = e.object_type === 'donation' ? await ownDonationForms(deps, e.book, [e.object_id]) : new Map();
  const { data } = await render(deps, e, donations);
  return { webhook_id: messageIdOf(e.id), body: payloadOf(e, data) };
}

/**
 * Relays up to `limit` events; returns how many it committed. They are rendered first, outside
 * any transaction (rendering reads through the services), then claimed, fanned out and marked in
 * one transaction: only the ones still unrelayed and not held by another relay.
 */
export async function relayEvents(deps: Deps, limit = 500): Promise<number> {
  const events = await unrelayedEvents(deps.db, limit);
  if (events.length === 0) return 0;
  // Donations, the most of them, are read all at once per book; the rest one by one.
  const donations: Donations = new Map();
  for (const book of ['live', 'test'] as const) {
    const ids = events.filter((e) => e.object_type === 'donation' && e.book === book).map((e) => e.object_id);
    for (const [id, d] of await ownDonationForms(deps, book, [...new Set(ids)])) donations.set(id, d);
  }
  const prepared = new Map<number, { rendered: Rendered; mail: Outgoing[] }>();
  for (const e of events) {
    const r = await render(deps, e, donations);
    prepared.set(e.id, {
      // A donation an app made is heard by that app's endpoints too (rules §25), in the owner's form.
      rendered: {
        event_id: e.id,
        user_id: e.user_id,
        app_id: e.object_type === 'donation' ? (donations.get(e.object_id)?.app_id ?? null) : null,
        type: e.type,
        payload: payloadOf(e, r.data),
      },
      mail: r.mail,
    });
  }
  return deps.db.transaction().execute(async (trx) => {
    const claimed = await claimEvents(trx, [...prepared.keys()]);
    if (claimed.length === 0) return 0;
    const at = deps.clock.now().toISOString();
    const mine = claimed.map((id) => prepared.get(id)).filter((p) => p !== undefined);
    await fanOut(
      trx,
      mine.map((p) => p.rendered),
      at,
    );
    await queueMail(
      trx,
      mine.flatMap((p) => p.mail),
      at,
    );
    await markRelayed(trx, claimed, at);
    return claimed.length;
  });
}
