// The page frame and the form pieces every page shares: labels tied to
// inputs, errors tied to fields (aria-describedby), an error summary that
// screen readers announce, and the CSRF field no form may lack.
import { Html, html } from './html.ts';
import type { Visitor } from './visitor.ts';

export interface FormState {
  values?: Record<string, string>;
  /** Field name -> message. */
  errors?: Record<string, string>;
  /** A message for the whole form. */
  message?: string;
  /** The problem code of a refusal (the API's for the same request): the summary links to its explanation. */
  code?: string;
}

export function csrfField(v: Visitor): Html {
  return html`<input type="hidden" name="_csrf" value="${v.csrf}">`;
}

/** `form` names the form when a page has several, so every id stays unique. */
export function errorSummary(state: FormState | undefined, form?: string): Html {
  if (state === undefined || (state.message === undefined && Object.keys(state.errors ?? {}).length === 0)) return html``;
  const items = Object.entries(state.errors ?? {});
  // Focused as the page opens (autofocus is any element's), so a long page scrolls to it and a screen reader reads it first.
  return html`<div class="notice error" role="alert" tabindex="-1" id="form-errors" autofocus>
    <p>${state.message ?? 'Please check the form.'}${state.code === undefined ? '' : html` <a class="muted" href="/errors/${state.code}" data-problem="${state.code}">(<code>${state.code}</code>)</a>`}</p>
    ${items.length > 0 ? html`<ul>${items.map(([field, message]) => html`<li><a href="#${fieldId(field, form)}">${field.replace(/_/g, ' ')}</a> ${message}</li>`)}</ul>` : ''}
  </div>`;
}

function fieldId(name: string, form: string | undefined): string {
  return form === undefined ? `f-${name}` : `f-${form}-${name}`;
}

export interface FieldOptions {
  name: string;
  /** Set when the page has more than one form. */
  form?: string;
  label: string;
  type?: string;
  state?: FormState | undefined;
  value?: string;
  hint?: string;
  required?: boolean;
  autocomplete?: string;
  extra?: Html;
  textarea?: boolean;
  maxlength?: number;
}

export function field(o: FieldOptions): Html {
  const id = fieldId(o.name, o.form);
  const error = o.state?.errors?.[o.name];
  const value = o.state?.values?.[o.name] ?? o.value ?? '';
  const described = [o.hint === undefined ? '' : `${id}-hint`, error === undefined ? '' : `${id}-error`].filter((s) => s !== '').join(' ');
  const common = html`id="${id}" name="${o.name}"${o.required === true ? html` required` : ''}${o.autocomplete === undefined ? '' : html` autocomplete="${o.autocomplete}"`}${o.maxlength === undefined ? '' : html` maxlength="${o.maxlength}"`}${described === '' ? '' : html` aria-describedby="${described}"`}${error === undefined ? '' : html` aria-invalid="true"`}${o.extra ?? ''}`;
  const control =
    o.textarea === true ? html`<textarea ${common} rows="3">${value}</textarea>` : html`<input ${common} type="${o.type ?? 'text'}" value="${o.type === 'password' ? '' : value}">`;
  return html`<div class="field">
    <label for="${id}">${o.label}</label>
    ${o.hint === undefined ? '' : html`<p class="hint" id="${id}-hint">${o.hint}</p>`}
    ${control}
    ${error === undefined ? '' : html`<p class="field-error" id="${id}-error">${error}</p>`}
  </div>`;
}

export function select(o: { name: string; form?: string; label: string; options: ReadonlyArray<readonly [string, string]>; value?: string; state?: FormState | undefined }): Html {
  const chosen = o.state?.values?.[o.name] ?? o.value;
  const id = fieldId(o.name, o.form);
  return html`<div class="field"><label for="${id}">${o.label}</label>
    <select id="${id}" name="${o.name}">${o.options.map(([value, label]) => html`<option value="${value}"${value === chosen ? html` selected` : ''}>${label}</option>`)}</select></div>`;
}

const NOTICES: Record<string, string> = {
  welcome: 'Welcome to Almoner. Your fund is ready. Confirm your address with the link we mailed to it.',
  address_confirmed: 'Your address is confirmed.',
  confirmation_sent: 'A new confirmation link is on its way to your address. It works once, for 48 hours.',
  address_link_sent: 'A link is on its way to the new address. Your address changes once you follow it, signed in.',
  signed_in: 'You are signed in.',
  signed_out: 'You are signed out.',
  password_reset: 'Your password is set, and every other session is signed out. Sign in with it.',
  donation_created: 'Your donation is recorded.',
  member_invited: 'The invitation is on its way.',
  member_changed: 'The role is changed.',
  member_removed: 'Done: the member is no longer in the fund.',
  fund_chosen: 'You act on the fund you chose.',
  request_approved: 'The request is approved: it is a donation of the fund now.',
  request_declined: 'The request is declined; they are told why.',
  invitation_accepted: 'Welcome: you give together now. You act on this fund.',
  donation_requested: 'Your request is sent: an organizer or advisor of the fund decides it.',
  donation_waiting: 'Your donation is recorded and waits for funds: it is scheduled as soon as your fund can cover it.',
  donation_cancelled: 'The donation is cancelled and its money is available again.',
  gift_created: 'Your gift is ready. Copy its link and send it to the recipient.',
  schedule_created: 'Your recurring donation is set up.',
  schedule_cancelled: 'The recurring donation is stopped.',
  key_revoked: 'The key is revoked: it stops working at once.',
  profile_saved: 'Your profile is saved.',
  gift_accepted: 'The gift is in your fund.',
  gift_claimed: 'The gift is on its way to the non-profit you chose.',
  gift_denied: 'The gift is declined; the money goes back to the giver.',
  contribution_declared: 'Your contribution is declared. Send it as below, with its reference.',
  contribution_cancelled: 'The contribution is cancelled.',
  endpoint_created: 'The endpoint is added. Events go to it from now on.',
  endpoint_tested: 'A test event is on its way: its attempt appears below within a few seconds.',
  secret_rotated: 'The secret is new. The old one keeps signing beside it for 24 hours.',
  endpoint_paused: 'The endpoint is paused: nothing is sent to it until you enable it.',
  endpoint_enabled: 'The endpoint is enabled again.',
  endpoint_deleted: 'The endpoint is deleted.',
  app_disconnected: 'The app is disconnected: its tokens no longer work.',
  app_deleted: 'The app is deleted: every donor connected to it is disconnected, and its tokens no longer work.',
  app_secret: 'The app has a new client secret: the old one no longer works.',
  claim_sent: 'A link is on its way to the address you gave: follow it while signed in to this account.',
  claim_confirmed: 'Your claim is confirmed. An operator checks it; you will get an e-mail when they decide.',
  allocation_saved: 'Your choice is saved: new contributions are invested as it says when they clear.',
  exchange_waiting: 'Saved. Your invested money moves at the next valuation; until then you can cancel the move.',
  investment_waiting: 'Done. The money is invested at the next valuation, at its prices.',
  exchange_cancelled: 'The move is cancelled: your money stays where it is.',
  bank_details_saved: 'The bank details are saved. Everyone else who acts for the organisation is told by e-mail.',
  fundraiser_opened: 'Your fundraiser is open: share this page. Every gift from it goes to the organisation.',
};

/** Where an organisation is: "Burlington, VT", or for a foreign one (the IRS leaves its state empty and puts the country in its city) the country alone. */
export function place(n: { city: string; state: string }): string {
  return n.state === '' ? n.city : n.city === '' ? n.state : `${n.city}, ${n.state}`;
}

/** A charity name that matched several: pick one (forms that take a name or an EIN, without JavaScript). */
export type CharityChoice = { ein: string; name: string; city: string; state: string };

export function charityChoices(choices: readonly CharityChoice[]): Html {
  return html`<fieldset class="field"><legend>Which non-profit did you mean?</legend>
      ${choices.map((c, i) => html`<label class="choice"><input type="radio" name="ein" value="${c.ein}"${i === 0 ? html` checked` : ''}> ${c.name} <span class="muted">${place(c)} · EIN ${c.ein}</span></label>`)}
    </fieldset>`;
}

/** Messages after a redirect are chosen by code from this list: no visitor text travels in a URL. */
export function notice(code: string | undefined): Html {
  const text = code === undefined ? undefined : NOTICES[code];
  return text === undefined ? html`` : html`<div class="notice ok" role="status">${text}</div>`;
}

const STATUS_LABEL: Record<string, string> = {
  scheduled: 'Scheduled',
  waiting_for_funds: 'Waiting for funds',
  approved: 'Approved',
  rejected: 'Rejected',
  check_mailed: 'Check mailed',
  completed: 'Completed',
  not_completed: 'Not completed',
  requested: 'Requested',
  new: 'Sent',
  accepted: 'Accepted',
  claimed: 'Claimed',
  denied: 'Declined',
  pending: 'Pending',
  success: 'Cleared',
  failed: 'Failed',
  active: 'Active',
  cancelled: 'Stopped',
};

/** A status as a labelled badge: donations, gifts, contributions and recurring donations. */
export function status(s: string): Html {
  return html`<span class="status status-${s}">${STATUS_LABEL[s] ?? s}</span>`;
}

/**
 * Every table of a page in a box of its own that scrolls sideways (reachable by keyboard), so that
 * a wide table never makes the page wider than a phone. Pages' tables never nest.
 */
function scrollingTables(body: Html): Html {
  return new Html(body.text.replace(/<table\b/g, '<div class="table-scroll" tabindex="0"><table').replace(/<\/table>/g, '</table></div>'));
}

export function layout(v: Visitor, title: string, body: Html): Html {
  const s = v.session;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Almoner</title>
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/static/app.css">
<script src="/static/app.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="site">
  <a class="brand" href="/">Almoner</a>
  <nav aria-label="Main">
    ${s === undefined ? '' : html`<button type="button" class="menu-toggle secondary small" aria-expanded="false" aria-controls="nav-links">Menu</button>`}
    <div class="nav-links" id="nav-links">
    <a href="/charities">Find a charity</a>
    ${
      s === undefined
        ? html`<a href="/signin">Sign in</a> <a href="/signup" class="button small">Sign up</a>`
        : html`<a href="/dashboard">Dashboard</a> <a href="/fund">Fund</a> <a href="/money">Add money</a> <a href="/invest">Investing</a> <a href="/settings/keys">API keys</a> <a href="/settings/webhooks">Webhooks</a> <a href="/settings/apps">Apps</a> <a href="/settings/profile">Profile</a> <a href="/${s.slug}">Your page</a>
        <form method="post" action="/signout" class="inline">${csrfField(v)}<button type="submit" class="link">Sign out</button></form>`
    }
    </div>
  </nav>
</header>
<main id="main" tabindex="-1">
${scrollingTables(body)}
</main>
<footer class="site"><p>Almoner: give from your fund to any US non-profit. <a href="/docs">API reference</a></p></footer>
</body>
</html>`;
}

export function pager(base: string, page: number, last: number, param = 'page'): Html {
  if (last <= 1) return html``;
  const sep = base.includes('?') ? '&' : '?';
  return html`<nav class="pager" aria-label="Pages">
    ${page > 1 ? html`<a href="${base}${sep}${param}=${page - 1}" rel="prev">Newer</a>` : ''}
    <span>Page ${page} of ${last}</span>
    ${page < last ? html`<a href="${base}${sep}${param}=${page + 1}" rel="next">Older</a>` : ''}
  </nav>`;
}
