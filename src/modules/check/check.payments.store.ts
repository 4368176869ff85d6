// The statements of `almoner check` about payments to charities and their grants (rules §17).
import type { Db } from '../../db/database.ts';
import { rows } from './check.store.ts';

/** rules §17: payments whose amount or count is not their grants' (a withdrawn one carries none), or a grant whose amount is not its donation's. */
export async function paymentTotalMismatches(db: Db): Promise<Array<{ id: number; what: string }>> {
  const totals = await rows(
    db,
    `select p.id, p.status, p.amount_cents as amount, p.grants as grants, coalesce(sum(g.amount_cents), 0) as summed, count(g.donation_id) as counted
     from payments p left join payment_grants g on g.payment_id = p.id group by p.id, p.status, p.amount_cents, p.grants
     having (p.status <> 'withdrawn' and (p.amount_cents <> coalesce(sum(g.amount_cents), 0) or p.grants <> count(g.donation_id)))
         or (p.status = 'withdrawn' and count(g.donation_id) > 0) limit 1000`,
  );
  const grants = await rows(
    db,
    'select g.payment_id as id, g.donation_id, g.amount_cents as amount, d.amount_cents as donated from payment_grants g join donations d on d.id = g.donation_id where g.amount_cents <> d.amount_cents limit 1000',
  );
  return [
    ...totals.map((r) => ({
      id: Number(r.id),
      what:
        r.status === 'withdrawn'
          ? `was withdrawn but still carries ${r.counted} grants`
          : `is ${r.amount} cents in ${r.grants} grants, but its grants sum to ${r.summed} in ${r.counted}`,
    })),
    ...grants.map((r) => ({ id: Number(r.id), what: `pays donation ${r.donation_id} ${r.amount} cents, not its ${r.donated}` })),
  ];
}

/** What each payment status and method means for its grants' donations (rules §17). */
const GRANT_STATUS = `case when p.status = 'open' then 'approved' when p.status = 'sent' and p.method = 'ach' then 'completed' when p.status = 'sent' then 'check_mailed'
  when p.status = 'cashed' then 'completed' when p.status = 'withheld' then 'rejected' else 'not_completed' end`;

/** rules §17: donations of a payment not in the status its payment says, or of another book or organisation; payments to an organisation screening had not cleared. */
export async function grantsOutOfStep(db: Db): Promise<Array<{ payment_id: number; donation_id: number; what: string }>> {
  const found = await rows(
    db,
    `select p.id as payment_id, d.id as donation_id, d.status, ${GRANT_STATUS} as expected, d.book as donation_book, p.book, d.non_profit_id, p.non_profit_id as paid_to
     from payment_grants g join payments p on p.id = g.payment_id join donations d on d.id = g.donation_id
     where d.status <> ${GRANT_STATUS} or d.book <> p.book or d.non_profit_id <> p.non_profit_id limit 1000`,
  );
  const unscreened = await rows(db, "select id, screened from payments where screened <> 'clear' limit 1000");
  return [
    ...found.map((r) => ({
      payment_id: Number(r.payment_id),
      donation_id: Number(r.donation_id),
      what: r.book !== r.donation_book || Number(r.non_profit_id) !== Number(r.paid_to) ? 'belongs to another book or organisation' : `is ${r.status}, not ${r.expected}`,
    })),
    ...unscreened.map((r) => ({ payment_id: Number(r.id), donation_id: 0, what: `went to an organisation screened as ${r.screened}` })),
  ];
}

/** The exceptions no operator has resolved yet (checks the bank paid after they were voided), both books. */
export async function openPaymentExceptions(db: Db) {
  return db.selectFrom('payment_exceptions').select(['id', 'book', 'payment_id', 'kind', 'amount_cents', 'paid_date']).where('resolution', 'is', null).orderBy('id').execute();
}
