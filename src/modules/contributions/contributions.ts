// Contribution vocabulary (spec 2.8).
export const CONTRIBUTION_TYPES = [
  'bank_account_scheduled_deposit', 'credit_card_scheduled_deposit', 'crypto_payment', 'stock_payment', 'check_payment',
  'wire_payment', 'check_daf_transfer', 'wire_daf_transfer', 'company_payment', 'third_party_payment',
] as const;
export type ContributionType = (typeof CONTRIBUTION_TYPES)[number];

export const CONTRIBUTION_STATUSES = ['pending', 'success', 'waiting_for_funds', 'failed'] as const;
export type ContributionStatus = (typeof CONTRIBUTION_STATUSES)[number];

export const FREQUENCIES = ['OneTime', 'Weekly', 'Monthly', 'Yearly'] as const;
export type Frequency = (typeof FREQUENCIES)[number];
