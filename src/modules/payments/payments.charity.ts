// What an organisation's own people see and do (docs/rules.md §18), once an
// operator approved their claim: the payments it was sent with each grant as
// its donor chose to be known, each payment's remittance advice, and its bank
// details (masked), which they may replace.
import { dayOf } from '../../shared/days.ts';
import type { Deps } from '../../deps.ts';
import { AppError, notFound } from '../../shared/errors.ts';
import { dollarsText } from '../../shared/money.ts';
import { requireClaimant } from '../charities/index.ts';
import { setPayeeAccount } from './payments.payees.ts';
import { donorAsShared, remittance } from './payments.remittances.ts';
import { maskedAccount } from './payments.ts';
import * as store from './payments.store.ts';
import * as payees from './payees.store.ts';

/** Payments shown on the organisation's page: the newest. */
const PAYMENTS_SHOWN = 100;

export interface CharityAccount {
  ein: string;
  name: string;
  bank: { routing: string; account: string; account_type: string; holder: string; usable_from: string; in_force: boolean } | null;
  payments: Array<{
    id: number;
    pay_date: string;
    method: string;
    check_number: number | null;
    amount: string;
    status: string;
    return_code: string | null;
    grants: Array<{ donation_id: number; amount: string; donor: string; designation: string | null; dedication: string | null }>;
  }>;
}

/** The organisation's page for a person who acts for it. Throws non_profit_not_found, claim_required. */
export async function charityAccount(deps: Deps, userId: number, ein: string): Promise<CharityAccount> {
  const view = await requireClaimant(deps, userId, ein);
  const [bank, payments] = await Promise.all([payees.activePayeeAccount(deps.db, view.id), store.paymentsToOrganisation(deps.db, view.id, PAYMENTS_SHOWN)]);
  const lines = Map.groupBy(
    await store.remittanceLines(
      deps.db,
      payments.map((p) => Number(p.id)),
    ),
    (l) => Number(l.payment_id),
  );
  const today = dayOf(deps.clock.now());
  return {
    ein: view.ein,
    name: view.name,
    bank:
      bank === undefined
        ? null
        : {
            routing: bank.routing,
            account: maskedAccount(bank.account_last4),
            account_type: bank.account_type,
            holder: bank.holder,
            usable_from: bank.usable_from,
            in_force: bank.usable_from <= today,
          },
    payments: payments.map((p) => ({
      id: Number(p.id),
      pay_date: p.pay_date,
      method: p.method,
      check_number: p.check_number === null ? null : Number(p.check_number),
      amount: dollarsText(Number(p.amount_cents)),
      status: p.status,
      return_code: p.return_code,
      grants: (lines.get(Number(p.id)) ?? []).map((g) => ({
        donation_id: Number(g.donation_id),
        amount: dollarsText(Number(g.amount_cents)),
        donor: donorAsShared(g.share, g.name, g.email ?? null),
        designation: g.designation,
        dedication: g.dedication,
      })),
    })),
  };
}

/** A sent payment's remittance advice (PDF), for a person who acts for its organisation. Throws claim_required, payment_not_found. */
export async function charityRemittance(deps: Deps, userId: number, ein: string, paymentId: number): Promise<Uint8Array> {
  const view = await requireClaimant(deps, userId, ein);
  const payment = await store.findPayment(deps.db, 'live', paymentId);
  if (payment === undefined || Number(payment.non_profit_id) !== view.id || payment.status === 'open')
    throw notFound('payment_not_found', `no payment ${paymentId} to ${view.name}`);
  return await remittance(deps, 'live', paymentId);
}

/**
 * A person who acts for the organisation gives its bank details (rules §17's checks; the other
 * claimants are told). Throws claim_required, validation_failed, bank_details_unavailable.
 */
export async function setOwnBankDetails(
  deps: Deps,
  person: { user_id: number; name: string },
  ein: string,
  input: { routing: string; account: string; account_type: string; holder: string },
) {
  const view = await requireClaimant(deps, person.user_id, ein);
  // The setting is the operator's to make, not theirs: they are told plainly, the operator by the log and a metric.
  if (deps.config.payments.payeeKey === undefined) {
    deps.log.error({ problem: 'payee_key_not_configured', ein: view.ein }, 'a charity could not give bank details: set PAYEE_DATA_KEY (or PAYEE_DATA_KEY_FILE) and restart');
    deps.metrics.configurationProblem('payee_key_not_configured');
    throw new AppError(
      'unavailable',
      'bank_details_unavailable',
      "bank details cannot be saved now; this platform's operator has been told. Your organisation is paid by check meanwhile",
    );
  }
  return await setPayeeAccount(deps, view.ein, input, { actor: `user:${person.user_id}`, name: person.name, userId: person.user_id });
}
