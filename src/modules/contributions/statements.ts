// Tax statements (rules §13): a period's contributions (deductible, with
// their receipt numbers) and the grants made from the fund in it
// (informational: not deductible a second time). A calendar year by default,
// any range for donors whose fiscal year is another.
import type { Deps } from '../../deps.ts';
import { badRequest } from '../../shared/errors.ts';
import { centsToDollars } from '../../shared/money.ts';
import type { Caller } from '../../shared/caller.ts';
import { grantsPaid } from '../donations/index.ts';
import { investmentTotals } from '../portfolio/index.ts';
import { donorName, succeededBetween } from './contributions.store.ts';
import { letterPdf, receiptNumber } from './receipts.ts';
import { contributionTypeName } from './contributions.ts';
import { isCalendarDay, startOfDayAfter } from '../../shared/days.ts';
import { usdOfDollars } from '../../shared/money.ts';

/** The statement's period: a year, or from/to (YYYY-MM-DD, inclusive). Throws invalid_parameter. */
export function statementPeriod(year: number | undefined, from: unknown, to: unknown): { from: string; to: string } {
  if (from !== undefined || to !== undefined) {
    if (typeof from !== 'string' || typeof to !== 'string' || !isCalendarDay(from) || !isCalendarDay(to)) {
      throw badRequest('invalid_parameter', 'from and to must both be dates, YYYY-MM-DD');
    }
    if (from > to) throw badRequest('invalid_parameter', 'from must not be after to');
    return { from, to };
  }
  if (year === undefined || !Number.isInteger(year) || year < 2000 || year > 2100) throw badRequest('invalid_parameter', 'the year must be from 2000 to 2100');
  return { from: `${year}-01-01`, to: `${year}-12-31` };
}

export async function taxStatement(deps: Deps, caller: Caller, period: { from: string; to: string }) {
  const start = `${period.from}T00:00:00.000Z`;
  const end = startOfDayAfter(period.to);
  const contributions = await succeededBetween(deps.db, caller.book, caller.user_id, start, end);
  const grants = await grantsPaid(deps, caller, start, end);
  const invested = await investmentTotals(deps, caller.fund_id, start, end);
  const total = contributions.reduce((sum, c) => sum + c.amount_cents, 0);
  const granted = grants.reduce((sum, g) => sum + g.cents, 0);
  const sponsor = deps.config.sponsor;
  return {
    sponsor: { name: sponsor.name, ein: sponsor.ein, address: sponsor.address },
    from: period.from,
    to: period.to,
    contributions: contributions.map((c) => ({
      id: c.id,
      received_at: c.completed_at,
      type: c.type,
      description: c.currency === 'USD' ? null : `${c.units} ${c.currency}`,
      amount: centsToDollars(c.amount_cents),
      receipt: c.receipt_id === null ? null : receiptNumber(c.receipt_id),
    })),
    total_contributions: centsToDollars(total),
    grants: grants.map(({ cents: _cents, ...g }) => g),
    total_grants: centsToDollars(granted),
    grants_note:
      'Grants made from your fund to charities. They are listed for your records only: your deduction was your contribution to the fund, and grants from it are not deductible a second time.',
    investment_gains: centsToDollars(invested.gains),
    investment_fees: centsToDollars(invested.fees),
    investment_note:
      "What your fund's investments gained (net of losses) and paid in the portfolio's fee at the period's valuations. For your records only: growth in a donor-advised fund is not taxed, and it is not deductible.",
  };
}

type Statement = Awaited<ReturnType<typeof taxStatement>>;

const usd = (dollars: number) => usdOfDollars(dollars);

/** The statement as a printable PDF: the sponsor at the top, the contributions with their receipts, the grants apart. */
function statementPdf(s: Statement, donorName: string): Promise<Uint8Array> {
  return letterPdf(`Tax statement ${s.from} to ${s.to}`, (line) => {
    line(s.sponsor.name, { size: 18, bold: true, gap: 4 });
    line(`EIN ${s.sponsor.ein}`, { gap: 2 });
    line(s.sponsor.address, { gap: 24 });
    line(`Contributions statement, ${s.from} to ${s.to}`, { size: 14, bold: true, gap: 10 });
    line(`Donor: ${donorName}`, { gap: 14 });
    line('Contributions (deductible)', { bold: true });
    if (s.contributions.length === 0) line('None in this period.');
    for (const c of s.contributions)
      line(
        `${(c.received_at ?? '').slice(0, 10)}  ${contributionTypeName(c.type)}${c.description === null ? '' : ` (${c.description})`}  ${usd(c.amount)}  receipt ${c.receipt ?? '-'}`,
      );
    line(`Total contributions: ${usd(s.total_contributions)}`, { bold: true, gap: 16 });
    line('Grants made from your fund (informational)', { bold: true });
    if (s.grants.length === 0) line('None in this period.');
    for (const g of s.grants) line(`${(g.paid_at ?? '').slice(0, 10)}  ${g.non_profit} (EIN ${g.ein})  ${usd(g.amount)}`);
    line(`Total grants: ${usd(s.total_grants)}`, { bold: true, gap: 10 });
    line(s.grants_note, { size: 9, gap: 16 });
    line('Investments (informational)', { bold: true });
    line(`Gains, net of losses: ${usd(s.investment_gains)}`);
    line(`Portfolio fees: ${usd(s.investment_fees)}`, { gap: 10 });
    line(s.investment_note, { size: 9 });
  });
}

/** A statement as its PDF download, with the caller's name as the donor's, named by its period. */
export async function statementDownload(deps: Deps, caller: Caller, s: Statement): Promise<{ filename: string; bytes: Uint8Array }> {
  return { filename: `statement-${s.from}-${s.to}.pdf`, bytes: await statementPdf(s, await donorName(deps.db, caller.user_id)) };
}
