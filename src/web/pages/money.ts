// Adding money (rules §7, 13): declare a contribution and read where to
// send it; each contribution's page with its instructions, cancel, and
// receipt; tax statements for a year or any period; CSV downloads.
import { CONTRIBUTION_TYPE_NAMES, contributionTypeName } from '../../modules/contributions/index.ts';
import { usdText, valueOfNumbersInCents } from '../../shared/money.ts';
import { html, day, usd, usdCents, type Html } from '../html.ts';
import { csrfField, errorSummary, field, layout, notice, pager, select, status, type FormState } from '../layout.ts';
import type { Visitor } from '../visitor.ts';
import type { DashboardData } from './dashboard.ts';
import type { Receipt } from '../../modules/contributions/index.ts';

/** What each type a donor may declare is called, in the order the form offers them. */
export const TYPE_LABELS: ReadonlyArray<readonly [string, string]> = (
  [
    'wire_payment',
    'bank_account_scheduled_deposit',
    'check_payment',
    'stock_payment',
    'crypto_payment',
    'wire_daf_transfer',
    'check_daf_transfer',
    'company_payment',
    'third_party_payment',
  ] as const
).map((t) => [t, CONTRIBUTION_TYPE_NAMES[t]] as const);

const label = contributionTypeName;

export interface ContributionView {
  id: number;
  type: string;
  units: number;
  valuation: number;
  currency: string;
  status: string;
  created_at: string;
  received_at: string | null;
  completed_at: string | null;
}

export interface MoneyData {
  balance: DashboardData['balance'];
  contributions: { items: ContributionView[]; meta: { page: number; last: number; count: number } };
  /** The years a statement can be asked for, newest first. */
  years: number[];
  /** The types declared in units and a symbol (stock, crypto); the others in dollars. */
  unitTypes: readonly string[];
}

/** What a contribution is, in words: "$5,000.00" or "10 AAPL" (valued at ...). */
function what(c: ContributionView): string {
  if (c.currency === 'USD') return usdText(valueOfNumbersInCents(c.units, 1));
  const value = c.valuation > 0 ? ` (${usdText(valueOfNumbersInCents(c.units, c.valuation))})` : '';
  return `${c.units} ${c.currency}${value}`;
}

function declareForm(v: Visitor, state: FormState | undefined, unitTypes: readonly string[]): Html {
  return html`<form method="post" action="/money" class="card" novalidate data-declare="${unitTypes.join(' ')}">
    <h2 id="declare">What you will send</h2>
    <p>Tell us what you will send. You get the instructions and a reference that ties the money to your fund. Nothing moves until it arrives.</p>
    ${errorSummary(state)}
    ${csrfField(v)}
    ${select({ name: 'type', label: 'How you will send it', options: TYPE_LABELS, value: 'wire_payment', state })}
    <div data-asset="cash">
      ${field({ name: 'amount', label: 'Amount (USD)', state, hint: 'Checks, transfers and grants from another fund: at least $1.', extra: html` inputmode="decimal"` })}
    </div>
    <div data-asset="units">
      ${field({ name: 'units', label: 'How many shares or tokens', state, hint: 'Stock and crypto only: up to 8 decimal places. They are valued on the day they arrive.', extra: html` inputmode="decimal"` })}
      ${field({ name: 'symbol', label: 'Ticker or token symbol', state, hint: 'Stock and crypto only, like AAPL or BTC.', maxlength: 16, extra: html` autocapitalize="characters"` })}
    </div>
    <button type="submit">Get instructions</button>
  </form>`;
}

function list(c: MoneyData['contributions']): Html {
  return html`<section aria-labelledby="contributions"><h2 id="contributions">Your contributions <span class="muted">(${c.meta.count})</span></h2>
    ${
      c.items.length === 0
        ? html`<p class="empty">No contributions yet.</p>`
        : html`<table>
      <thead><tr><th scope="col">Date</th><th scope="col">Type</th><th scope="col" class="num">What</th><th scope="col">Status</th><th scope="col">Receipt</th></tr></thead>
      <tbody>${c.items.map(
        (
          x,
        ) => html`<tr data-contribution="${x.id}"><td><a href="/money/${x.id}">${day(x.created_at)}</a></td><td>${label(x.type)}</td><td class="num">${what(x)}</td><td>${status(x.status)}</td>
        <td>${x.status === 'success' ? html`<a href="/money/${x.id}/receipt.pdf" download>PDF</a>` : ''}</td></tr>`,
      )}</tbody></table>
      <p><a href="/money/contributions.csv" download class="button secondary small">Download all as CSV</a></p>`
    }
    ${pager('/money', c.meta.page, c.meta.last)}
  </section>`;
}

function statements(years: number[]): Html {
  return html`<section aria-labelledby="statements"><h2 id="statements">Tax statements</h2>
    <p>Your contributions of the period (deductible, with their receipt numbers) and the grants made from your fund (for your records; not deductible again).</p>
    <ul class="links">${years.map((y) => html`<li><a href="/money/statements/${y}.pdf" download>${y} statement (PDF)</a></li>`)}</ul>
    <form method="get" action="/money/statement.pdf" class="card">
      <h3>Another period</h3>
      <p class="hint">If your fiscal year is not the calendar year.</p>
      ${field({ name: 'from', form: 'period', label: 'From', type: 'date', required: true })}
      ${field({ name: 'to', form: 'period', label: 'To (inclusive)', type: 'date', required: true })}
      <button type="submit" class="secondary">Download statement</button>
    </form>
  </section>`;
}

export function moneyPage(v: Visitor, data: MoneyData, state?: FormState, done?: string): Html {
  return layout(
    v,
    'Add money',
    html`<h1>Add money</h1>
    ${notice(done)}
    <p>Available to give: <strong>${usdCents(data.balance.available_balance_cents)}</strong>${
      data.balance.pending_deposit_balance_cents > 0 ? html` · on its way: ${usdCents(data.balance.pending_deposit_balance_cents)}` : ''
    }</p>
    <div class="columns">
      <div>${declareForm(v, state, data.unitTypes)}</div>
      <div>${statements(data.years)}</div>
    </div>
    ${list(data.contributions)}`,
  );
}

export interface ContributionDetail extends ContributionView {
  reference: string | null;
  instructions: { steps: string[]; reference: string } | null;
}

/** A receipt as its donor reads it (rules §13). */
export type ReceiptView = Receipt;

function receiptSection(c: ContributionDetail, r: ReceiptView): Html {
  return html`<section aria-labelledby="receipt" class="card receipt"><h2 id="receipt">Receipt ${r.number}</h2>
    <p><strong>${r.sponsor.name}</strong><br>EIN ${r.sponsor.ein}<br>${r.sponsor.address}</p>
    ${r.replaces === null ? '' : html`<p>This receipt corrects and replaces receipt ${r.replaces}${r.correction_reason === null ? '' : html`: ${r.correction_reason}`}.</p>`}
    <dl>
      <div><dt>Donor</dt><dd>${r.donor.name}</dd></div>
      <div><dt>Date received</dt><dd>${day(r.date_received)}</dd></div>
      ${r.amount_usd === null ? '' : html`<div><dt>Amount</dt><dd>${usd(r.amount_usd)} (cash)</dd></div>`}
      ${r.description === null ? '' : html`<div><dt>Contributed</dt><dd>${r.description} (non-cash)</dd></div>`}
      ${r.value_usd === null ? '' : html`<div><dt>Value used</dt><dd>${usd(r.value_usd)}${r.valuation_source === null ? '' : ` (${r.valuation_source})`}</dd></div>`}
      ${r.declared_usd === null ? '' : html`<div><dt>Declared</dt><dd>${usd(r.declared_usd)} (the receipt states what was received)</dd></div>`}
    </dl>
    <p>${r.no_goods_or_services}</p>
    <p>${r.exclusive_control}</p>
    <p><a href="/money/${c.id}/receipt.pdf" download class="button">Download receipt (PDF)</a></p>
    ${r.all.length > 1 ? html`<p class="muted">Receipts issued for this contribution: ${r.all.join(', ')}.</p>` : ''}
  </section>`;
}

export function contributionPage(v: Visitor, c: ContributionDetail, receipt: ReceiptView | undefined, done?: string): Html {
  return layout(
    v,
    `Contribution ${c.id}`,
    html`<p><a href="/money">← Add money</a></p>
    <h1>${label(c.type)}: ${what(c)}</h1>
    ${notice(done)}
    <p>${status(c.status)} · declared ${day(c.created_at)}${c.received_at === null ? '' : html` · received ${day(c.received_at)}`}${c.reference === null ? '' : html` · reference <strong class="reference">${c.reference}</strong>`}</p>
    ${
      c.instructions === null
        ? ''
        : html`<section aria-labelledby="instructions" class="card"><h2 id="instructions">How to send it</h2>
      <ol>${c.instructions.steps.map((s) => html`<li>${s}</li>`)}</ol>
      <p>Your reference: <strong class="reference">${c.instructions.reference}</strong>. Without it we cannot tell your money from anyone else's.</p>
      <form method="post" action="/money/${c.id}/cancel" class="inline">${csrfField(v)}<button type="submit" class="secondary small">Cancel this contribution</button></form>
    </section>`
    }
    ${receipt === undefined ? '' : receiptSection(c, receipt)}`,
  );
}
