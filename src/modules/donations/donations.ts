// Donation rules: statuses, the minimum, the cancel rule.
export const DONATION_STATUSES = ['scheduled', 'waiting_for_funds', 'approved', 'rejected', 'completed', 'not_completed', 'check_mailed', 'requested'] as const;
export type DonationStatus = (typeof DONATION_STATUSES)[number];

export const VISIBILITIES = ['public', 'private'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

export const DONATION_MIN_CENTS = 1000; // spec 8: at least 10 USD

/** Spec 4.2: only donations not yet accepted or rejected by the platform. */
export function isCancellable(status: string): boolean {
  return status === 'scheduled' || status === 'waiting_for_funds' || status === 'requested';
}

/** rules §7: scheduled when the fund can hold the amount now, else waiting. */
export function initialStatus(availableCents: number, amountCents: number): DonationStatus {
  return availableCents >= amountCents ? 'scheduled' : 'waiting_for_funds';
}

/**
 * rules §7: which waiting donations `cents` covers, in their order (oldest first): each that fits
 * what the ones before it left, so a large one does not stop smaller, younger ones. Promotion
 * holds them; a valuation sells units for them first. The one rule for both.
 */
export function covered(amounts: readonly number[], cents: number): boolean[] {
  let left = cents;
  return amounts.map((amount) => {
    if (initialStatus(left, amount) !== 'scheduled') return false;
    left -= amount;
    return true;
  });
}

/** The operator's events on a donation (rules §7). The owner's cancel is separate. */
/** What the charity learns of the donor (rules §17): their name and e-mail, their name, or nothing. */
export const SHARES = ['name_and_email', 'name', 'anonymous'] as const;
export type Share = (typeof SHARES)[number];
export const DESIGNATION_MAX = 100;
export const DEDICATION_MAX = 200;

export const DONATION_EVENTS = ['approve', 'reject', 'pay', 'mail_check', 'cash_check', 'void_check'] as const;
/**
 * An operator's events (DONATION_EVENTS), and `return_payment`: a payment that reached no one (an
 * ACH return) gives a completed donation's money back; only a payment's outcome moves it (rules §17).
 */
export type DonationEvent = (typeof DONATION_EVENTS)[number] | 'return_payment';

/** Which accounts an event moves the amount between, if any. */
export type HoldMove = 'reserved_to_available' | 'reserved_to_grants_paid' | 'grants_paid_to_available' | null;

export const DONATION_TRANSITIONS: Record<DonationEvent, { from: readonly DonationStatus[]; to: DonationStatus; move: HoldMove }> = {
  approve: { from: ['scheduled'], to: 'approved', move: null },
  reject: { from: ['scheduled', 'approved'], to: 'rejected', move: 'reserved_to_available' },
  pay: { from: ['approved'], to: 'completed', move: 'reserved_to_grants_paid' },
  mail_check: { from: ['approved'], to: 'check_mailed', move: 'reserved_to_grants_paid' },
  cash_check: { from: ['check_mailed'], to: 'completed', move: null },
  void_check: { from: ['check_mailed'], to: 'not_completed', move: 'grants_paid_to_available' },
  return_payment: { from: ['completed'], to: 'not_completed', move: 'grants_paid_to_available' },
};

/** rules §8: donations that did not happen (or not yet: a family member's request, rules §20), shown only to their owner. */
export const HIDDEN_FROM_OTHERS: readonly string[] = ['not_completed', 'rejected', 'requested'];

/** Whether someone other than the owner may see this donation (public, and it happened). */
export function shownToOthers(d: { visibility: string; status: string }): boolean {
  return d.visibility === 'public' && !HIDDEN_FROM_OTHERS.includes(d.status);
}
