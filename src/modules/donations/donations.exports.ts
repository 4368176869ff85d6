// A donor's donations read out whole: the CSV export (rules §13, a batch at a
// time) and the grants paid in a period (a tax statement's informational part).
import type { Deps } from '../../deps.ts';
import type { Caller } from '../../shared/caller.ts';
import type { RowFilters } from '../../shared/page.ts';
import { centsToDollars } from '../../shared/money.ts';
import * as store from './donations.exports.store.ts';

const EXPORT_BATCH = 1000;

/** The columns; partner fields (rules §21) last: the external id, and the metadata as its JSON text. */
export const DONATION_CSV_HEADER = [
  'id',
  'created_at',
  'status',
  'amount',
  'ein',
  'non_profit',
  'note',
  'private_memo',
  'visibility',
  'scheduled_donation_id',
  'made_by',
  'external_id',
  'metadata',
] as const;

/** Every one of the caller's donations matching `f`, newest first, as CSV rows, read a batch at a time; `made_by` names the member who made each (rules §20). */
export async function* exportDonations(deps: Deps, caller: Caller, f: RowFilters): AsyncGenerator<unknown[]> {
  let before: number | undefined;
  for (;;) {
    const rows = await store.donationsForExport(deps.db, caller.user_id, f, before, EXPORT_BATCH);
    for (const d of rows)
      yield [
        d.id,
        d.created_at,
        d.status,
        centsToDollars(d.amount_cents),
        d.ein,
        d.non_profit,
        d.note,
        d.private_memo,
        d.visibility,
        d.scheduled_donation_id,
        d.made_by,
        d.external_id,
        d.metadata,
      ];
    if (rows.length < EXPORT_BATCH) return;
    before = rows.at(-1)?.id;
  }
}

/** The caller's grants paid in [from, to) (a tax statement's informational part). */
export async function grantsPaid(deps: Deps, caller: Caller, from: string, to: string) {
  return (await store.grantsPaidBetween(deps.db, caller.book, caller.user_id, from, to)).map((d) => ({
    id: d.id,
    paid_at: d.mailed_at ?? d.completed_at,
    ein: d.ein,
    non_profit: d.non_profit,
    amount: centsToDollars(d.amount_cents),
    cents: d.amount_cents,
  }));
}
