// Receipts as use cases (rules §13): issued once, in the transaction that
// makes a contribution succeed; read by their donor (JSON or PDF); corrected
// only by a new receipt that names the one it replaces, both kept.
import type { Deps } from '../../deps.ts';
import type { Trx } from '../../db/database.ts';
import type { Book } from '../../shared/book.ts';
import type { Caller } from '../../shared/caller.ts';
import { conflict, fieldErrors, notFound } from '../../shared/errors.ts';
import { recordAudit } from '../audit/index.ts';
import { receiptLedger } from '../ledger/index.ts';
import { donorName, findContribution, insertReceipt, lockContribution, receiptsOf, successesWithoutReceipt } from './contributions.store.ts';
import { receiptBody, receiptNumber, receiptPdf, type ReceiptBody, type ReceiptSource } from './receipts.ts';

type Receipted = ReceiptSource & { book: Book; user_id: number };

/**
 * rules §13: a contribution that succeeds gets its numbered receipt, in the same transaction,
 * once (a unique index backs it). The receipt states what it states now, for good.
 */
export async function issueReceipt(deps: Deps, trx: Trx, c: Receipted, at: string): Promise<void> {
  const name = await donorName(trx, c.user_id);
  await insertReceipt(trx, { book: c.book, contribution_id: c.id, user_id: c.user_id, replaces_id: null, issued_at: at }, (id) =>
    receiptBody(id, deps.config.sponsor, name, c, null),
  );
}

/**
 * Issues the receipt of every succeeded contribution that has none (an older release's node made
 * it succeed during a rolling upgrade, ADR 13), each in its own transaction under the
 * contribution's lock, once: running it again, or on two nodes at once, issues nothing more.
 * A server runs it every minute; `almoner receipts repair` runs it by hand. Returns how many.
 */
export async function repairReceipts(deps: Deps): Promise<number> {
  let issued = 0;
  for (;;) {
    const ids = await successesWithoutReceipt(deps.db, 100);
    if (ids.length === 0) return issued;
    for (const id of ids) {
      const made = await deps.db.transaction().execute(async (trx) => {
        const c = await lockContribution(trx, id);
        if (c.status !== 'success' || (await receiptsOf(trx, c.book, id)).some((r) => r.replaces_id === null)) return false;
        await issueReceipt(deps, trx, c, deps.clock.now().toISOString());
        return true;
      });
      if (made) issued += 1;
    }
    if (ids.length < 100) return issued;
  }
}

/** What a receipt says of the journal's log (docs/rules.md §26); null for a contribution with no entry. */
export type ReceiptLedger = NonNullable<Awaited<ReturnType<typeof receiptLedger>>>;

export type Receipt = ReceiptBody & { issued_at: string; all: string[]; ledger: ReceiptLedger | null };

/**
 * The receipt of one of the caller's contributions: the newest one (a correction replaces the
 * one it names), with the numbers of every receipt issued for it, oldest first.
 * Throws contribution_not_found, not_found (receipt_not_found: it has not succeeded).
 */
export async function receiptOf(deps: Deps, caller: Caller, contributionId: number): Promise<Receipt> {
  const c = await findContribution(deps.db, caller.book, contributionId);
  if (c === undefined || c.user_id !== caller.user_id) throw notFound('contribution_not_found', `no contribution ${contributionId}`);
  const receipts = await receiptsOf(deps.db, caller.book, contributionId);
  const newest = receipts.at(-1);
  if (newest === undefined) throw notFound('receipt_not_found', `contribution ${contributionId} has no receipt: it is ${c.status}`);
  const body = JSON.parse(newest.body) as ReceiptBody;
  return {
    ...body,
    correction_reason: body.correction_reason ?? null,
    declared_usd: body.declared_usd ?? null,
    issued_at: newest.issued_at,
    all: receipts.map((r) => receiptNumber(r.id)),
    // Read now, not stored: the entry's place and its proof come after the receipt (the log takes it later).
    ledger: (await receiptLedger(deps, caller.book, contributionId)) ?? null,
  };
}

/**
 * An operator corrects a receipt: a new receipt, built from the contribution and the donor as
 * they are now (a corrected name, the sponsor's new address), that names the newest receipt it
 * replaces and why. Nothing is changed or deleted: every receipt issued stays readable by its
 * number in the audit log and the donor's list. Audited. Returns the new receipt's number.
 * Throws unprocessable (validation_failed), contribution_not_found, not_found (receipt_not_found), conflict.
 */
export async function correctReceipt(deps: Deps, book: Book, contributionId: number, reason: string, actor: string): Promise<string> {
  const why = reason.trim();
  if (why === '' || why.length > 500) throw fieldErrors([{ field: 'reason', code: 'validation_failed', message: 'must say why, in 1 to 500 characters' }]);
  const at = deps.clock.now().toISOString();
  return deps.db.transaction().execute(async (trx) => {
    if ((await findContribution(trx, book, contributionId)) === undefined) throw notFound('contribution_not_found', `no contribution ${contributionId}`);
    // Locked, so that two corrections at once replace one receipt each, in turn (a unique index backs it).
    const c = await lockContribution(trx, contributionId);
    const replaced = (await receiptsOf(trx, book, contributionId)).at(-1);
    if (replaced === undefined) throw notFound('receipt_not_found', `contribution ${contributionId} has no receipt to correct: it is ${c.status}`);
    if (c.status !== 'success') throw conflict('invalid_transition', `contribution ${contributionId} is ${c.status}`);
    const name = await donorName(trx, c.user_id);
    const id = await insertReceipt(trx, { book, contribution_id: c.id, user_id: c.user_id, replaces_id: replaced.id, issued_at: at }, (newId) =>
      receiptBody(newId, deps.config.sponsor, name, c, { id: replaced.id, reason: why }),
    );
    await recordAudit(trx, {
      book,
      actor,
      action: 'receipt.corrected',
      object_type: 'contribution',
      object_id: c.id,
      before: { receipt: receiptNumber(replaced.id) },
      after: { receipt: receiptNumber(id), reason: why },
      at,
    });
    return receiptNumber(id);
  });
}

/** A receipt as its PDF download: its printable page, named by its number. */
export async function receiptDownload(receipt: Receipt): Promise<{ filename: string; bytes: Uint8Array }> {
  return { filename: `receipt-${receipt.number}.pdf`, bytes: await receiptPdf(receipt, receipt.ledger?.verification_code) };
}
