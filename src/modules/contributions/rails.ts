// Rails (ADR 14): each contribution type is handled by a rail that says how
// the money comes in. Today every rail is manual (instructions for the donor,
// an operator records what arrived); the sandbox's deposits clear by
// themselves. A card or bank processor would be one more rail, behind this
// interface, without touching the ledger.
import type { ContributionType } from './contributions.ts';
import { parseDecimal, usdText } from '../../shared/money.ts';
import type { SponsorDetails } from '../../config.sponsor.ts';

/** The sponsor the instructions name: its settings (config.sponsor.ts). */
export type Sponsor = SponsorDetails;

/** What a donor is told to do to send a declared contribution. */
export interface Instructions {
  method: 'mail_check' | 'bank_transfer' | 'stock_transfer' | 'crypto_transfer' | 'daf_transfer';
  /** The steps, in order, in words. */
  steps: string[];
  /** To write on the check or in the transfer's memo: what ties the money to the declaration. */
  reference: string;
}

export interface Rail {
  /** The declaration is valid for this rail: cash needs an amount; stock and crypto, units and a symbol. */
  asset: 'cash' | 'units';
  instructions(sponsor: Sponsor, reference: string, declared: { amount?: string; units?: string; symbol?: string }): Instructions;
}

const payee = (s: Sponsor) => `${s.name} (EIN ${s.ein})`;

/** A declared amount as the page beside it writes money: "$1,000.00". */
const dollars = (amount: string | undefined) => {
  const cents = amount === undefined ? null : parseDecimal(amount, 2);
  return cents === null ? `$${amount ?? ''}` : usdText(Number(cents));
};

const check: Rail = {
  asset: 'cash',
  instructions: (s, reference, d) => ({
    method: 'mail_check',
    reference,
    steps: [`Make a check for ${dollars(d.amount)} payable to ${payee(s)}.`, `Write ${reference} on its memo line.`, `Mail it to ${s.address}.`],
  }),
};

const bank: Rail = {
  asset: 'cash',
  instructions: (s, reference, d) => ({
    method: 'bank_transfer',
    reference,
    steps: [`Send ${dollars(d.amount)} to ${payee(s)}: ${s.bank}.`, `Put ${reference} in the transfer's reference or memo field.`],
  }),
};

const stock: Rail = {
  asset: 'units',
  instructions: (s, reference, d) => ({
    method: 'stock_transfer',
    reference,
    steps: [
      `Ask your broker to transfer ${d.units} shares of ${d.symbol} to ${payee(s)}: ${s.brokerage}.`,
      `Give your broker ${reference} as the reference, so that the shares are credited to your fund.`,
      'The shares are valued on the day they arrive; your receipt states that value and its source.',
    ],
  }),
};

const crypto: Rail = {
  asset: 'units',
  instructions: (s, reference, d) => ({
    method: 'crypto_transfer',
    reference,
    steps: [`Send ${d.units} ${d.symbol} to ${payee(s)}: ${s.crypto}.`, `Tell us the transaction id with ${reference}; the tokens are valued on the day they arrive.`],
  }),
};

const daf: Rail = {
  asset: 'cash',
  instructions: (s, reference, d) => ({
    method: 'daf_transfer',
    reference,
    steps: [`Ask your donor-advised fund to grant ${dollars(d.amount)} to ${payee(s)}, ${s.address}.`, `Ask them to name ${reference} in the grant's purpose or memo.`],
  }),
};

/** The rail of each type a donor may declare (a card needs a processor: not declarable yet). */
export const RAILS: Partial<Record<ContributionType, Rail>> = {
  check_payment: check,
  wire_payment: bank,
  bank_account_scheduled_deposit: bank,
  company_payment: bank,
  third_party_payment: bank,
  stock_payment: stock,
  crypto_payment: crypto,
  check_daf_transfer: daf,
  wire_daf_transfer: daf,
};

/** The types declared in units and a symbol (stock, crypto); the others in dollars. */
export const UNIT_TYPES: readonly string[] = Object.entries(RAILS)
  .filter(([, rail]) => rail.asset === 'units')
  .map(([type]) => type);
