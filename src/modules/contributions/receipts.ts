// Receipts (rules §13): what one states, and its PDF. A receipt is built once,
// when its contribution succeeds, and kept as built: reading it never rebuilds it.
import { letterPdf } from './letters.ts';
import { centsToDollars } from '../../shared/money.ts';
import type { Sponsor } from './rails.ts';
import { usdOfDollars } from '../../shared/money.ts';

export interface ReceiptBody {
  number: string;
  sponsor: { name: string; ein: string; address: string };
  donor: { name: string };
  date_received: string;
  contribution_id: number;
  /** Cash: the amount in USD. */
  amount_usd: number | null;
  /** Non-cash: what was given, and the value used where one was recorded. */
  description: string | null;
  value_usd: number | null;
  valuation_source: string | null;
  /** What the donor declared, in USD, when what arrived differs from it (rules §13); else null. */
  declared_usd: number | null;
  no_goods_or_services: string;
  exclusive_control: string;
  /** A correction: the receipt it replaces, and why. */
  replaces: string | null;
  correction_reason: string | null;
}

export const NO_GOODS = 'No goods or services were provided in exchange for this contribution.';
export const CONTROL = 'The sponsoring organisation has exclusive legal control over the contributed assets (Internal Revenue Code section 170(f)(18)).';

/** R-000042: the platform's receipt numbers, from the receipts' ids. */
export function receiptNumber(id: number): string {
  return `R-${String(id).padStart(6, '0')}`;
}

/** What of a contribution a receipt states. */
export interface ReceiptSource {
  id: number;
  currency: string;
  units: string;
  amount_cents: number;
  received_at: string | null;
  completed_at: string | null;
  valuation_source: string | null;
  /** What was declared (migration 041), stated when it differs from what arrived. */
  declared_cents?: number | null;
}

/** What a receipt states for a contribution that succeeded. */
export function receiptBody(id: number, sponsor: Sponsor, donorName: string, c: ReceiptSource, replaces: { id: number; reason: string } | null): ReceiptBody {
  const cash = c.currency === 'USD';
  return {
    number: receiptNumber(id),
    sponsor: { name: sponsor.name, ein: sponsor.ein, address: sponsor.address },
    donor: { name: donorName },
    date_received: (c.received_at ?? c.completed_at ?? '').slice(0, 10),
    contribution_id: c.id,
    amount_usd: cash ? centsToDollars(c.amount_cents) : null,
    description: cash ? null : `${c.units} ${c.currency}`,
    value_usd: cash ? null : centsToDollars(c.amount_cents),
    valuation_source: cash ? null : c.valuation_source,
    declared_usd: c.declared_cents !== null && c.declared_cents !== undefined && c.declared_cents !== c.amount_cents ? centsToDollars(c.declared_cents) : null,
    no_goods_or_services: NO_GOODS,
    exclusive_control: CONTROL,
    replaces: replaces === null ? null : receiptNumber(replaces.id),
    correction_reason: replaces?.reason ?? null,
  };
}

const usd = (dollars: number) => usdOfDollars(dollars);

export { letterPdf } from './letters.ts';

/**
 * One printable page (US Letter): the sponsor's name at the top, then every statement rules §13
 * requires, and the ledger's verification code of the contribution's entry (rules §26), if given.
 */
export async function receiptPdf(r: ReceiptBody, verificationCode?: string): Promise<Uint8Array> {
  return letterPdf(`Receipt ${r.number}`, (line) => {
    line(r.sponsor.name, { size: 18, bold: true, gap: 4 });
    line(`EIN ${r.sponsor.ein}`, { gap: 2 });
    line(r.sponsor.address, { gap: 24 });
    line(`Contribution receipt ${r.number}`, { size: 14, bold: true, gap: 14 });
    if (r.replaces !== null) line(`This receipt corrects and replaces receipt ${r.replaces}${r.correction_reason === null ? '' : `: ${r.correction_reason}`}.`, { gap: 12 });
    line(`Donor: ${r.donor.name}`);
    line(`Date received: ${r.date_received}`);
    if (r.amount_usd !== null) line(`Amount: ${usd(r.amount_usd)} (cash)`);
    if (r.description !== null) line(`Contributed: ${r.description} (non-cash)`);
    if (r.value_usd !== null) line(`Value used: ${usd(r.value_usd)}${r.valuation_source === null ? '' : ` (${r.valuation_source})`}`);
    if (r.declared_usd !== null && r.declared_usd !== undefined) line(`Declared: ${usd(r.declared_usd)}; this receipt states what was received.`);
    line('', { gap: 12 });
    line(r.no_goods_or_services);
    line(r.exclusive_control);
    line('', { gap: 12 });
    line('Keep this receipt for your tax records.', { size: 9 });
    if (verificationCode !== undefined) {
      line(`Ledger verification code: ${verificationCode}`, { size: 9 });
      line("It names this contribution's entry in our published, signed journal: almoner verify --code checks it.", { size: 9 });
    }
  });
}
