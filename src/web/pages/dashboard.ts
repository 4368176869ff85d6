// The donor's dashboard: balances, donations (cancel exactly when the rules
// allow), a new donation with search-as-you-type, gifts with their share
// links, contributions and recurring donations.
import { html, day, usd, usdCents, type Html } from '../html.ts';
import { charityChoices, csrfField, errorSummary, field, layout, notice, pager, select, status, type CharityChoice, type FormState } from '../layout.ts';
import type { Visitor } from '../visitor.ts';
import { ROLE_LABEL, articleOf } from './fund.ts';
import { SCHEDULE_FREQUENCIES } from '../../modules/scheduled/index.ts';
import { valueChart } from './invest.ts';
import { contributionTypeName } from '../../modules/contributions/index.ts';

export interface DashboardData {
  /** The person's address, while it is not proven (rules §15): the dashboard asks them to follow the link. */
  unconfirmed?: string;
  balance: { amount_cents: number; pending_deposit_balance_cents: number; portfolio_balance_cents: number; available_balance_cents: number };
  /** The organisations the person acts for (approved claims) or has claimed (waiting): their door back to each. */
  organisations: Array<{ ein: string; name: string; status: string }>;
  /** The fund the person acts on and their role in it (rules §20): a member of another's fund sees whose it is, and asks instead of giving. */
  acting: { role: string; fund_name: string; asks: boolean };
  donations: {
    items: Array<{
      id: number;
      amount: number;
      status: string;
      /** A not_completed donation its donor cancelled, not one whose payment came back. */
      cancelled: boolean;
      /** Whether the signed-in person may cancel it now (its status, and their role in the fund). */
      cancellable: boolean;
      note?: string;
      created_at: string;
      visibility: string;
      non_profit: { name: string; ein: string; public_path: string };
    }>;
    meta: { page: number; last: number; count: number };
  };
  gifts: { items: Array<{ code: string; name: string; amount: number; status: string; seen: boolean; url: string; created_at: string }>; meta: { count: number } };
  contributions: { items: Array<{ id: number; type: string; units: number; valuation: number; currency: string; status: string; created_at: string }>; meta: { count: number } };
  schedules: {
    items: Array<{ id: number; non_profit_name: string; ein: string; amount: number; frequency: string; next_date: string | null; status: string }>;
    meta: { count: number };
  };
  /** Open gifts sent to the signed-in person's e-mail by others (rules §7, Gifts). */
  waiting: Array<{ code: string; name: string; amount: number; message: string | null; giver_name: string; url: string }>;
  /** The invested value at each valuation, oldest first (the chart). */
  history: Array<{ at: string; value_cents: number; units: string }>;
  /** This year's gains (net of losses) and fees, in cents. */
  invested: { gains: number; fees: number };
}

/** Where a form on the dashboard stands after a failed post: which form, what was typed, what went wrong, and choices for an ambiguous charity name. */
export interface DashboardForms {
  /** `wait`: the amount is more than is available; the donor is asked before it waits for the money. */
  donation?: FormState & { choices?: CharityChoice[]; wait?: { amount_cents: number; available_cents: number; pending_cents: number } };
  gift?: FormState;
  schedule?: FormState;
}

function charityField(prefix: string, state: DashboardForms['donation']): Html {
  const choices = state?.choices ?? [];
  if (choices.length > 0) return charityChoices(choices);
  return field({
    name: 'ein',
    form: prefix,
    label: 'Non-profit',
    state,
    required: true,
    hint: 'Type a name, a city or an EIN. Suggestions appear as you type.',
    extra: html` data-suggest="${prefix}" autocomplete="off" role="combobox" aria-autocomplete="list" aria-expanded="false" aria-controls="${prefix}-suggestions"`,
  });
}

function suggestions(prefix: string): Html {
  return html`<ul class="suggestions" id="${prefix}-suggestions" role="listbox" aria-label="Matching non-profits" hidden></ul><p class="chosen muted" id="${prefix}-chosen" aria-live="polite"></p>`;
}

/** The donation form; on a charity's own page (`fixed`) it names that organisation instead of asking which. */
/** The donation form; `asks`: the person gives by request (a family member, rules §20), so it asks rather than donates. */
export function donationForm(v: Visitor, state: DashboardForms['donation'], prefix = 'donate', fixed?: { ein: string; name: string; fundraiser_id?: number }, asks = false): Html {
  return html`<form method="post" action="/dashboard/donations" class="card" novalidate>
    <h2 id="new-donation">${fixed === undefined ? 'New donation' : html`Donate to ${fixed.name}`}</h2>
    ${state === undefined ? '' : errorSummary(state, prefix)}
    ${csrfField(v)}
    ${
      fixed === undefined
        ? html`${charityField(prefix, state)}
    ${suggestions(prefix)}`
        : html`<input type="hidden" name="ein" value="${fixed.ein}">${
            fixed.fundraiser_id === undefined
              ? html`<input type="hidden" name="from" value="charity">`
              : html`<input type="hidden" name="from" value="fundraiser"><input type="hidden" name="fundraiser_id" value="${fixed.fundraiser_id}">`
          }<p class="muted">${fixed.name} · EIN ${fixed.ein.slice(0, 2)}-${fixed.ein.slice(2)}</p>`
    }
    ${state?.wait === undefined ? '' : waitNotice(state.wait)}
    ${field({ name: 'amount', form: prefix, label: 'Amount (USD)', state, required: true, hint: 'At least $10.', extra: html` inputmode="decimal"` })}
    ${field({ name: 'note', form: prefix, label: 'Public note (optional)', state, textarea: true, maxlength: 1000 })}
    ${select({
      name: 'visibility',
      form: prefix,
      label: 'Who can see it',
      options: [
        ['public', 'Anyone who can see my profile'],
        ['private', 'Only me'],
      ],
      state,
    })}
    ${asks ? html`<p class="muted" id="asks">An organizer or advisor of the fund approves it before it goes.</p>` : ''}
    <button type="submit">${asks ? 'Request' : state?.wait === undefined ? 'Donate' : 'Donate when the money is there'}</button>
  </form>`;
}

/** Asked before a donation larger than what is available: it would wait, and until when. */
function waitNotice(w: NonNullable<NonNullable<DashboardForms['donation']>['wait']>): Html {
  const short = w.amount_cents - w.available_cents;
  const when =
    w.pending_cents >= short
      ? html`when your pending deposits (${usdCents(w.pending_cents)}) clear`
      : w.pending_cents === 0
        ? html`once ${usdCents(short)} more has arrived (<a href="/money">add money</a>)`
        : html`once your pending deposits (${usdCents(w.pending_cents)}) have cleared and ${usdCents(short - w.pending_cents)} more has arrived (<a href="/money">add money</a>)`;
  return html`<div class="notice warn" role="alert" id="donation-wait">
      <p><strong>Your fund has ${usdCents(w.available_cents)} available to give; this donation is ${usdCents(w.amount_cents)}.</strong></p>
      <p>It would wait, holding nothing, and go ${when}. Donate anyway, or change the amount.</p>
      <input type="hidden" name="wait" value="yes">
    </div>`;
}

/** The organisations the person acts for, each with its door (Manage), and the claims that wait. */
function organisations(list: DashboardData['organisations']): Html {
  const shown = list.filter((o) => o.status === 'approved' || o.status === 'pending' || o.status === 'unconfirmed');
  if (shown.length === 0) return html``;
  return html`<section aria-labelledby="organisations"><h2 id="organisations">Organisations you act for</h2><ul class="plain">
    ${shown.map((o) =>
      o.status === 'approved'
        ? html`<li><a href="/charities/${o.ein}/manage">Manage ${o.name}</a> <span class="muted">(its grants, payments and bank details)</span></li>`
        : html`<li>${o.name} <span class="muted">(your claim waits: ${o.status === 'unconfirmed' ? 'follow the link mailed to you' : 'an operator checks it'})</span></li>`,
    )}
  </ul></section>`;
}

function balances(b: DashboardData['balance'], history: DashboardData['history'], invested: DashboardData['invested'], acting: DashboardData['acting']): Html {
  const held = b.amount_cents - b.available_balance_cents - b.portfolio_balance_cents;
  const own = acting.role === 'organizer';
  return html`<section aria-labelledby="balances"><h2 id="balances">${own ? 'Your fund' : acting.fund_name}</h2>
    ${own ? '' : html`<p id="your-role">You are ${articleOf(ROLE_LABEL[acting.role] ?? acting.role)} ${ROLE_LABEL[acting.role] ?? acting.role} of this fund${acting.asks ? ': your donations are requests an organizer or advisor approves' : ''}. <a href="/fund">The fund</a></p>`}
    <dl class="figures">
      <div><dt>Total</dt><dd>${usdCents(b.amount_cents)}</dd></div>
      <div><dt>Available to give</dt><dd>${usdCents(b.available_balance_cents)}</dd></div>
      <div><dt>Pending deposits</dt><dd>${usdCents(b.pending_deposit_balance_cents)}</dd></div>
      <div><dt>Invested</dt><dd>${usdCents(b.portfolio_balance_cents)}</dd></div>
    </dl>
    <p class="muted" id="how-it-adds-up">The total is what is available (${usdCents(b.available_balance_cents)}), plus what is held for donations and gifts on their way (${usdCents(held)}), plus what is invested (${usdCents(b.portfolio_balance_cents)}: your units at the last valuation's price). Pending deposits join the total when they clear. <a href="/invest">Investing</a></p>
    ${history.length === 0 && invested.fees === 0 ? '' : html`<p id="this-year">This year your investments ${invested.gains >= 0 ? 'gained' : 'lost'} ${usdCents(Math.abs(invested.gains))} and paid ${usdCents(invested.fees)} in fees.</p>`}
    ${history.length === 0 ? '' : valueChart(history)}
  </section>`;
}

function donations(v: Visitor, d: DashboardData['donations'], invested: boolean): Html {
  return html`<section aria-labelledby="donations"><h2 id="donations">Donations <span class="muted">(${d.meta.count})</span></h2>
    ${
      d.items.length === 0
        ? html`<p class="empty">No donations yet.</p>`
        : html`<table>
      <thead><tr><th scope="col">Date</th><th scope="col">Non-profit</th><th scope="col" class="num">Amount</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody>${d.items.map(
        (x) => html`<tr data-donation="${x.id}">
        <td>${day(x.created_at)}</td>
        <td><a href="${x.non_profit.public_path}">${x.non_profit.name}</a>${x.note === undefined ? '' : html`<br><span class="muted note">${x.note}</span>`}${x.visibility === 'private' ? html` <span class="tag">private</span>` : ''}</td>
        <td class="num">${usd(x.amount)}</td>
        <td>${
          x.status === 'waiting_for_funds' && invested
            ? html`<span class="status status-waiting_for_funds">Waiting for the next valuation</span>`
            : x.status === 'not_completed'
              ? html`<span class="status status-not_completed">${x.cancelled ? 'Cancelled' : 'Payment returned'}</span>`
              : status(x.status)
        }</td>
        <td>${x.cancellable ? html`<form method="post" action="/dashboard/donations/${x.id}/cancel" class="inline">${csrfField(v)}<button type="submit" class="secondary small" aria-label="Cancel the donation of ${usd(x.amount)} to ${x.non_profit.name}">Cancel</button></form>` : ''}</td>
      </tr>`,
      )}</tbody></table>`
    }
    ${d.items.length === 0 ? '' : html`<p><a href="/dashboard/donations.csv" download class="button secondary small">Download all as CSV</a></p>`}
    ${pager('/dashboard', d.meta.page, d.meta.last)}
  </section>`;
}

function gifts(v: Visitor, g: DashboardData['gifts'], state: FormState | undefined): Html {
  return html`<section aria-labelledby="gifts"><h2 id="gifts">Gifts <span class="muted">(${g.meta.count})</span></h2>
    <p>Give someone money to direct: they accept it into their own fund, send it to a non-profit, or decline it.</p>
    ${
      g.items.length === 0
        ? html`<p class="empty">No gifts yet.</p>`
        : html`<table>
      <thead><tr><th scope="col">Date</th><th scope="col">For</th><th scope="col" class="num">Amount</th><th scope="col">Status</th><th scope="col">Share link</th></tr></thead>
      <tbody>${g.items.map(
        (x, i) => html`<tr data-gift="${x.code}">
        <td>${day(x.created_at)}</td><td>${x.name}</td><td class="num">${usd(x.amount)}</td>
        <td>${status(x.status)}${x.seen ? html` <span class="tag">seen</span>` : ''}</td>
        <td class="share"><label class="visually-hidden" for="gift-link-${i}">Share link for ${x.name}</label><input id="gift-link-${i}" readonly value="${x.url}"> <button type="button" class="secondary small" data-copy="gift-link-${i}">Copy link</button></td>
      </tr>`,
      )}</tbody></table>`
    }
    <form method="post" action="/dashboard/gifts" class="card" novalidate>
      <h3>New gift</h3>
      ${errorSummary(state, 'gift')}
      ${csrfField(v)}
      ${field({ name: 'name', form: 'gift', label: "Recipient's name", state, required: true, maxlength: 200 })}
      ${field({ name: 'amount', form: 'gift', label: 'Amount (USD)', state, required: true, hint: 'At least $18.', extra: html` inputmode="decimal"` })}
      ${field({ name: 'message', form: 'gift', label: 'Message (optional)', state, textarea: true, maxlength: 1000 })}
      ${field({ name: 'email', form: 'gift', label: "Recipient's email (optional)", type: 'email', state })}
      <button type="submit">Create gift</button>
    </form>
  </section>`;
}

function contributions(c: DashboardData['contributions']): Html {
  return html`<section aria-labelledby="contributions"><h2 id="contributions">Contributions <span class="muted">(${c.meta.count})</span></h2>
    <p><a href="/money" class="button small">Add money</a> Declare a check, transfer, stock or crypto; receipts and tax statements are there too.</p>
    ${
      c.items.length === 0
        ? html`<p class="empty">No contributions yet. Money you put into your fund appears here.</p>`
        : html`<table>
      <thead><tr><th scope="col">Date</th><th scope="col">Type</th><th scope="col" class="num">Units</th><th scope="col" class="num">Value each</th><th scope="col">Status</th></tr></thead>
      <tbody>${c.items.map((x) => html`<tr><td><a href="/money/${x.id}">${day(x.created_at)}</a></td><td>${contributionTypeName(x.type)}</td><td class="num">${x.currency === 'USD' ? x.units : `${x.units} ${x.currency}`}</td><td class="num">${usd(x.valuation)}</td><td>${status(x.status)}</td></tr>`)}</tbody></table>`
    }
  </section>`;
}

function schedules(v: Visitor, s: DashboardData['schedules'], state: FormState | undefined): Html {
  return html`<section aria-labelledby="recurring"><h2 id="recurring">Recurring donations <span class="muted">(${s.meta.count})</span></h2>
    ${
      s.items.length === 0
        ? html`<p class="empty">No recurring donations.</p>`
        : html`<table>
      <thead><tr><th scope="col">Non-profit</th><th scope="col" class="num">Amount</th><th scope="col">Every</th><th scope="col">Next</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody>${s.items.map(
        (x) => html`<tr><td>${x.non_profit_name}</td><td class="num">${usd(x.amount)}</td><td>${x.frequency}</td><td>${day(x.next_date)}</td><td>${status(x.status)}</td>
        <td>${x.status === 'active' ? html`<form method="post" action="/dashboard/scheduled/${x.id}/cancel" class="inline">${csrfField(v)}<button type="submit" class="secondary small" aria-label="Stop the recurring donation to ${x.non_profit_name}">Stop</button></form>` : ''}</td></tr>`,
      )}</tbody></table>`
    }
    <form method="post" action="/dashboard/scheduled" class="card" novalidate>
      <h3>New recurring donation</h3>
      ${errorSummary(state, 'recurring')}
      ${csrfField(v)}
      ${field({ name: 'ein', form: 'recurring', label: 'Non-profit EIN', state, required: true, hint: "Nine digits; pick one with the search above or on a charity's page.", extra: html` data-suggest="recurring" autocomplete="off" role="combobox" aria-autocomplete="list" aria-expanded="false" aria-controls="recurring-suggestions"` })}
      ${suggestions('recurring')}
      ${field({ name: 'amount', form: 'recurring', label: 'Amount each time (USD)', state, required: true, extra: html` inputmode="decimal"` })}
      ${select({ name: 'frequency', form: 'recurring', label: 'How often', options: SCHEDULE_FREQUENCIES.map((f) => [f, f === 'OneTime' ? 'Once' : f] as const), value: 'Monthly', state })}
      ${field({ name: 'next_date', form: 'recurring', label: 'First date', type: 'date', state, hint: 'Today if left empty.' })}
      <button type="submit">Set up</button>
    </form>
  </section>`;
}

/** Gifts sent to the person's address, waiting for them to choose: none, nothing shown. */
function giftsForYou(waiting: DashboardData['waiting']): Html {
  if (waiting.length === 0) return html``;
  return html`<section aria-labelledby="gifts-for-you" class="card" id="waiting-gifts">
    <h2 id="gifts-for-you">Gifts for you</h2>
    <p>Sent to your e-mail address: open one to give it to a non-profit or to take it into your fund.</p>
    <ul>
      ${waiting.map(
        (g) =>
          html`<li data-gift="${g.code}"><a href="/gifts/${g.code}">${usd(g.amount)} from ${g.giver_name}</a>${g.message === null ? '' : html` <span class="muted">"${g.message}"</span>`}</li>`,
      )}
    </ul>
  </section>`;
}

export function dashboardPage(v: Visitor, data: DashboardData, forms: DashboardForms = {}, done?: string): Html {
  const name = v.session?.name ?? '';
  return layout(
    v,
    'Dashboard',
    html`<h1>Hello, ${name}</h1>
    ${notice(done)}
    ${
      data.unconfirmed === undefined
        ? ''
        : html`<div class="notice" role="status" id="confirm-address">
      <p>Confirm <strong>${data.unconfirmed}</strong> with the link we mailed to it: until then, gifts and invitations sent to it do not reach you.</p>
      <form method="post" action="/account/confirm">${csrfField(v)}<button type="submit" class="secondary">Send the link again</button></form>
    </div>`
    }
    ${giftsForYou(data.waiting)}
    ${organisations(data.organisations)}
    ${balances(data.balance, data.history, data.invested, data.acting)}
    <div class="columns">
      <div>${donations(v, data.donations, data.balance.portfolio_balance_cents > 0)}</div>
      <div>${donationForm(v, forms.donation, 'donate', undefined, data.acting.asks)}</div>
    </div>
    ${gifts(v, data.gifts, forms.gift)}
    ${schedules(v, data.schedules, forms.schedule)}
    ${contributions(data.contributions)}`,
  );
}
