// The pages of an organisation's own people (docs/rules.md §18): claiming it,
// confirming the claim, and, once approved, its payments and bank details.
import { html, type Html } from '../html.ts';
import { csrfField, errorSummary, field, layout, notice, select, type FormState } from '../layout.ts';
import type { Visitor } from '../visitor.ts';
import type { CharityAccount } from '../../modules/payments/index.ts';

export interface ClaimPageView {
  ein: string;
  name: string;
  public_path: string;
  /** The web domain an address must be at; null when the directory has no website for it. */
  domain: string | null;
  /** The visitor's claim of it, if any is live. */
  claim: { status: string; email: string } | undefined;
}

const CLAIM_STATUS: Record<string, string> = {
  unconfirmed: 'We sent a link to {email}. Follow it while signed in to this account to confirm the claim (it works for a day). You may ask for a new one below.',
  pending: 'Your claim is confirmed and waits for an operator to approve it. You will get an e-mail at {email} when they decide.',
  approved: 'You act for this organisation.',
};

export function claimPage(v: Visitor, c: ClaimPageView, options: { state?: FormState; done?: string } = {}): Html {
  const status = c.claim === undefined ? undefined : CLAIM_STATUS[c.claim.status]?.replace('{email}', c.claim.email);
  const canAsk = c.claim === undefined || c.claim.status === 'unconfirmed';
  return layout(
    v,
    `Claim ${c.name}`,
    html`<h1>Claim ${c.name}</h1>
    ${notice(options.done)}
    <p>People who work for <a href="${c.public_path}">${c.name}</a> may claim it: to see the grants and payments it receives, with each remittance, and to give its bank details so that it is paid by direct deposit rather than by check.</p>
    ${status === undefined ? '' : html`<p class="notice" role="status">${status}</p>`}
    ${c.claim?.status === 'approved' ? html`<p><a class="button" href="/charities/${c.ein}/manage">Manage ${c.name}</a></p>` : ''}
    ${
      canAsk
        ? html`<form method="post" action="/charities/${c.ein}/claim" novalidate>
      ${csrfField(v)}
      ${errorSummary(options.state)}
      ${
        c.domain === null
          ? field({
              name: 'website',
              label: "The organisation's website",
              hint: 'The IRS directory has no website for it: give its address. An operator checks it before approving the claim.',
              state: options.state,
              required: true,
              maxlength: 200,
              autocomplete: 'url',
            })
          : ''
      }
      ${field({
        name: 'email',
        label: 'Your e-mail address at the organisation',
        type: 'email',
        hint: c.domain === null ? "It must be at the website's domain. We send a link there." : `It must be at ${c.domain}. We send a link there.`,
        state: options.state,
        required: true,
        autocomplete: 'email',
        maxlength: 254,
      })}
      <button type="submit">Send the link</button>
    </form>`
        : ''
    }`,
  );
}

export function confirmClaimPage(v: Visitor, c: { name: string; ein: string; email: string; token: string }): Html {
  return layout(
    v,
    `Confirm your claim for ${c.name}`,
    html`<h1>Confirm your claim for ${c.name}</h1>
    <p>You followed the link sent to ${c.email}. Confirm, and an operator checks the claim; you will get an e-mail when they decide.</p>
    <form method="post" action="/charities/claims/confirm/${c.token}">${csrfField(v)}<button type="submit">Confirm the claim</button></form>`,
  );
}

const PAYMENT_STATUS: Record<string, string> = {
  sent: 'Sent',
  cashed: 'Cashed',
  returned: 'Returned by the bank',
  voided: 'Voided',
};

function bankSection(v: Visitor, a: CharityAccount, state: FormState | undefined): Html {
  const b = a.bank;
  const current =
    b === null
      ? html`<p>No bank details yet: ${a.name} is paid by check, mailed to the address the IRS has for it.</p>`
      : html`<dl class="details"><dt>Account</dt><dd>${b.account} (${b.account_type}), routing number ${b.routing}</dd>
        <dt>Holder</dt><dd>${b.holder}</dd>
        <dt>Direct deposit</dt><dd>${b.in_force ? `in force since ${b.usable_from}` : `from ${b.usable_from}; checks until then (new details wait a few days, and everyone who acts for the organisation is told)`}</dd></dl>`;
  return html`<section aria-labelledby="bank"><h2 id="bank">Bank details</h2>
    ${current}
    <form method="post" action="/charities/${a.ein}/bank-details" novalidate>
      ${csrfField(v)}
      ${errorSummary(state, 'bank')}
      <fieldset><legend>${b === null ? 'Give' : 'Replace'} the bank details</legend>
      ${field({ name: 'holder', form: 'bank', label: "Account holder's name", state, required: true, maxlength: 100 })}
      ${field({ name: 'routing', form: 'bank', label: 'Routing number', hint: '9 digits, on the bottom left of a check', state, required: true, maxlength: 9, extra: html` inputmode="numeric"` })}
      ${field({ name: 'account', form: 'bank', label: 'Account number', hint: '4 to 17 digits', state, required: true, maxlength: 20, extra: html` inputmode="numeric" autocomplete="off"` })}
      ${select({
        name: 'account_type',
        form: 'bank',
        label: 'Account type',
        options: [
          ['checking', 'Checking'],
          ['savings', 'Savings'],
        ],
        state,
      })}
      </fieldset>
      <button type="submit">Save the bank details</button>
    </form></section>`;
}

export function charityAccountPage(v: Visitor, a: CharityAccount, options: { state?: FormState; done?: string } = {}): Html {
  return layout(
    v,
    `${a.name}: payments`,
    html`<h1>${a.name}</h1>
    ${notice(options.done)}
    <section aria-labelledby="payments"><h2 id="payments">Payments received</h2>
    ${
      a.payments.length === 0
        ? html`<p>No payment has been sent to ${a.name} yet.</p>`
        : a.payments.map(
            (p) => html`<article class="payment" aria-labelledby="payment-${p.id}">
          <h3 id="payment-${p.id}">Payment ${p.id}: $${p.amount}, ${p.pay_date}</h3>
          <p>${p.method === 'ach' ? 'By direct deposit' : `Check number ${p.check_number}`} · ${PAYMENT_STATUS[p.status] ?? p.status}${p.return_code === null ? '' : ` (${p.return_code})`} ·
            <a href="/charities/${a.ein}/payments/${p.id}/remittance.pdf">Remittance advice (PDF)</a></p>
          <table><caption>The grants of payment ${p.id}</caption>
            <thead><tr><th scope="col">Grant</th><th scope="col">Amount</th><th scope="col">From</th><th scope="col">For</th><th scope="col">Dedication</th></tr></thead>
            <tbody>${p.grants.map((g) => html`<tr><td>${g.donation_id}</td><td>$${g.amount}</td><td>${g.donor}</td><td>${g.designation ?? ''}</td><td>${g.dedication ?? ''}</td></tr>`)}</tbody>
          </table></article>`,
          )
    }</section>
    ${bankSection(v, a, options.state)}`,
  );
}
