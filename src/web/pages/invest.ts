// Investing (docs/rules.md §19): the fund's portfolio, units and what waits
// for the next valuation; the portfolios to choose from; the share of new
// contributions to invest; the value over time, drawn and in a table.
import { html, day, usdCents, type Html } from '../html.ts';
import { csrfField, errorSummary, field, layout, notice, type FormState } from '../layout.ts';
import { lineChart } from '../chart.ts';
import type { Visitor } from '../visitor.ts';
import type { AllocationView, PortfolioView } from '../../modules/portfolio/index.ts';
import { centsOfDollars } from '../../shared/money.ts';

export interface InvestView {
  allocation: AllocationView;
  portfolios: PortfolioView[];
  history: Array<{ at: string; value_cents: number; units: string }>;
}

const bps = (n: number) => `${(n / 100).toFixed(2)}% a year`;

/** The fund's value over time: a chart with its table. */
export function valueChart(history: InvestView['history']): Html {
  if (history.length === 0) return html`<p class="muted">Your fund's value in its portfolio appears here after its first valuation.</p>`;
  const dollars = (cents: number) => usdCents(Math.round(cents));
  return html`${lineChart(
    'value',
    'What your invested money was worth at each valuation',
    history.map((h) => ({ label: day(h.at), value: h.value_cents })),
    dollars,
  )}
    <details><summary>The figures</summary>
    <table><caption class="visually-hidden">Invested value at each valuation</caption>
      <thead><tr><th scope="col">Valuation</th><th scope="col" class="num">Units</th><th scope="col" class="num">Value</th></tr></thead>
      <tbody>${history.map((h) => html`<tr><td>${day(h.at)}</td><td class="num">${h.units}</td><td class="num">${dollars(h.value_cents)}</td></tr>`)}</tbody>
    </table></details>`;
}

/** The page; `options.form` is the form a refused `state` belongs to (the choice, or investing now). */
export function investPage(v: Visitor, data: InvestView, options: { state?: FormState; done?: string; form?: 'choose' | 'now' } = {}): Html {
  const a = data.allocation;
  const state = (form: 'choose' | 'now') => ((options.form ?? 'choose') === form ? options.state : undefined);
  const named = (id: number | null) => (id === null ? 'cash only' : (data.portfolios.find((p) => p.id === id)?.name ?? `portfolio ${id}`));
  const chosen = state('choose')?.values?.portfolio_id ?? (a.portfolio_id === null ? 'cash' : String(a.portfolio_id));
  return layout(
    v,
    'Investing',
    html`<h1>Investing</h1>
    ${notice(options.done)}
    <section aria-labelledby="now"><h2 id="now">Now</h2>
      <dl class="details">
        <dt>Portfolio</dt><dd>${named(a.portfolio_id)}</dd>
        <dt>Units</dt><dd>${a.units}${a.unit_price === null ? '' : ` at $${a.unit_price} each`}</dd>
        <dt>Invested</dt><dd>${usdCents(centsOfDollars(a.portfolio_balance))} <span class="muted">(units × unit price at the last valuation)</span></dd>
        <dt>New contributions</dt><dd>${a.invest_share}% invested when they clear</dd>
        ${a.pending_investment > 0 ? html`<dt>Waiting to be invested</dt><dd>${usdCents(centsOfDollars(a.pending_investment))} at the next valuation</dd>` : ''}
      </dl>
      ${
        a.pending_exchange === null
          ? ''
          : html`<div class="notice" role="status"><p>Waiting for the next valuation: a move to ${named(a.pending_exchange.to_portfolio_id)}, asked ${day(a.pending_exchange.requested_at)}.</p>
        <form method="post" action="/invest/exchange/cancel" class="inline">${csrfField(v)}<button type="submit" class="secondary small">Cancel the move</button></form></div>`
      }
    </section>
    <section aria-labelledby="history"><h2 id="history">Value over time</h2>${valueChart(data.history)}</section>
    ${a.portfolio_id === null && state('now') === undefined ? '' : investNowForm(v, named(a.portfolio_id), state('now'))}
    <form method="post" action="/invest" class="card" novalidate>
      <h2 id="choose">Choose how your fund is invested</h2>
      ${errorSummary(state('choose'), 'invest')}
      ${csrfField(v)}
      <fieldset class="field"><legend>Portfolio</legend>
        <p class="hint">A change moves your invested money at the next valuation, at its prices; until then you can cancel it.</p>
        <label class="choice"><input type="radio" name="portfolio_id" value="cash"${chosen === 'cash' ? html` checked` : ''}> Cash only <span class="muted">(nothing invested; invested money is sold at the next valuation)</span></label>
        ${data.portfolios.map(
          (p) => html`<label class="choice"><input type="radio" name="portfolio_id" value="${p.id}"${chosen === String(p.id) ? html` checked` : ''}> <strong>${p.name}</strong>
          <span class="muted">${p.risk_level} risk · fee ${bps(p.annual_fee_bps)} · ${p.holdings.map((h) => `${h.symbol} ${h.weight}%`).join(', ')}${p.unit_price === null ? '' : ` · $${p.unit_price} a unit`}</span>${p.description === '' ? '' : html`<br><span class="muted">${p.description}</span>`}</label>`,
        )}
      </fieldset>
      ${field({ name: 'invest_share', form: 'invest', label: 'Share of new contributions to invest (%)', state: state('choose'), value: String(a.invest_share), required: true, extra: html` inputmode="numeric"` })}
      <button type="submit">Save</button>
    </form>`,
  );
}

/** Invest now: money the fund already holds, bought into its portfolio at the next valuation. */
function investNowForm(v: Visitor, portfolio: string, state: FormState | undefined): Html {
  return html`<form method="post" action="/invest/now" class="card" novalidate>
      <h2 id="invest-now">Invest money your fund holds</h2>
      ${errorSummary(state, 'invest_now')}
      ${csrfField(v)}
      <p class="hint">Bought into ${portfolio} at the next valuation, at its prices, with what your fund's available money holds then beyond the donations waiting for it.</p>
      ${field({ name: 'amount', form: 'invest_now', label: 'Amount (USD)', state, required: true, extra: html` inputmode="decimal"` })}
      <button type="submit">Invest now</button>
    </form>`;
}
