// Pages anyone may open: home, the directory, a non-profit, a profile, a
// gift, and the error page.
import { html, day, usd, usdWhole, type Html } from '../html.ts';
import { charityChoices, csrfField, layout, notice, pager, place, status, type CharityChoice, type FormState } from '../layout.ts';
import type { Visitor } from '../visitor.ts';
import type { CharityProfile } from '../../modules/nonprofits/index.ts';
import { donationForm } from './dashboard.ts';

interface NonProfitView {
  ein: string;
  name: string;
  website: string | null;
  city: string;
  state: string;
  public_path: string;
  logo: string;
  cause: { name: string };
}

/** An organisation in a list: its cause's badge, its name linking to its page, where it is and its cause (and `more`). */
function charityItem(n: NonProfitView, more = ''): Html {
  return html`<li><img src="${n.logo}" alt="" width="32" height="32"> <a href="${n.public_path}">${n.name}</a> <span class="muted">${place(n)} · ${n.cause.name}${more}</span></li>`;
}

function searchForm(query: string): Html {
  return html`<form method="get" action="/charities" role="search" class="search">
    <label for="q">Search non-profits by name, city or EIN</label>
    <div class="row"><input id="q" name="query" type="search" value="${query}" maxlength="200" autocomplete="off"> <button type="submit">Search</button></div>
  </form>`;
}

export function homePage(v: Visitor): Html {
  return layout(
    v,
    'Give from your fund',
    html`<section class="hero">
    <h1>Give from one fund to any US non-profit</h1>
    <p>Put money in once, then give it out when and where you choose: donations to any of the country's charities, or gifts that let someone else choose.</p>
    ${v.session === undefined ? html`<p><a class="button" href="/signup">Open your fund</a> <a href="/signin">Sign in</a></p>` : html`<p><a class="button" href="/dashboard">Go to your dashboard</a></p>`}
  </section>
  ${searchForm('')}`,
  );
}

/** What /charities was asked: words, and a cause and a state to browse by (each optional). */
export interface CharityBrowse {
  query: string;
  cause: { id: number; name: string } | undefined;
  state: string | undefined;
  /** Near this ZIP code's centre. */
  zip: string | undefined;
}

function browseLinks(causes: ReadonlyArray<{ id: number; name: string }>, state: string | undefined): Html {
  return html`<section aria-labelledby="browse"><h2 id="browse">Browse by cause</h2>
    <ul class="causes">${causes.map((c) => html`<li><a href="/charities?cause=${c.id}${state === undefined ? '' : `&state=${state}`}">${c.name}</a></li>`)}</ul>
    <form method="get" action="/charities" class="inline-form">
      <label for="browse-state">Or the largest organisations of a state</label>
      <input id="browse-state" name="state" maxlength="2" size="3" autocomplete="off" placeholder="VT" value="${state ?? ''}"> <button type="submit" class="secondary small">Show</button>
    </form>
    <form method="get" action="/charities" class="inline-form">
      <label for="browse-zip">Or the largest organisations near a ZIP code</label>
      <input id="browse-zip" name="zip" inputmode="numeric" pattern="[0-9]{5}" maxlength="5" size="6" autocomplete="postal-code" placeholder="05401"> <button type="submit" class="secondary small">Show</button>
    </form>
  </section>`;
}

/** How many organisations a search found, in words: "1 matching non-profit.", "2,000+ matching non-profits." */
function matchLine(meta: { count: number; count_capped?: boolean }): string {
  const capped = meta.count_capped === true;
  if (meta.count === 0) return capped ? 'None of the largest organisations using these words matches them all: add a word or a filter.' : 'No non-profit matches.';
  return `${meta.count.toLocaleString('en-US')}${capped ? '+' : ''} matching ${meta.count === 1 && !capped ? 'non-profit' : 'non-profits'}.`;
}
export function charitySearchPage(
  v: Visitor,
  asked: CharityBrowse,
  causes: ReadonlyArray<{ id: number; name: string }>,
  results: { items: NonProfitView[]; meta: { count: number; page: number; last: number; count_capped?: boolean } } | undefined,
  /** How many organisations the directory holds: said when a search finds none. */
  directorySize?: number,
): Html {
  const { query, cause, state, zip } = asked;
  const filters = [cause?.name, state, zip === undefined ? undefined : `near ${zip}`].filter((f) => f !== undefined).join(' · ');
  const params = [
    query === '' ? '' : `query=${encodeURIComponent(query)}`,
    cause === undefined ? '' : `cause=${cause.id}`,
    state === undefined ? '' : `state=${state}`,
    zip === undefined ? '' : `zip=${zip}`,
  ]
    .filter((p) => p !== '')
    .join('&');
  return layout(
    v,
    query === '' ? (filters === '' ? 'Find a charity' : `${filters}: charities`) : `${query}: charities`,
    html`<h1>Find a charity</h1>
    ${searchForm(query)}
    ${
      results === undefined
        ? browseLinks(causes, state)
        : html`${query === '' ? html`<h2>The largest organisations: ${filters}</h2>` : filters === '' ? '' : html`<p>Only ${filters}. <a href="/charities?query=${encodeURIComponent(query)}">Everywhere</a></p>`}
    <p class="muted" role="status">${matchLine(results.meta)}</p>
    ${
      results.meta.count === 0 && directorySize !== undefined
        ? html`<p class="notice" id="directory-size">This directory holds ${directorySize.toLocaleString('en-US')} organisations: the IRS files its operator loaded. The national directory has about 1.9 million; an operator loads it with <code>almoner nonprofits download</code> and <code>almoner nonprofits import data/irs/bmf</code>.</p>`
        : ''
    }
    <ul class="results">${results.items.map((n) => charityItem(n, ` · EIN ${n.ein}`))}</ul>
    ${pager(`/charities?${params}`, results.meta.page, results.meta.last)}
    ${query === '' ? html`<p><a href="/charities">All causes</a></p>` : ''}`
    }`,
  );
}

/** What a charity's page shows: the organisation, whether it can receive donations, what the IRS says of it, and others. */
export interface CharityPageView {
  view: NonProfitView;
  receives: boolean;
  profile: CharityProfile;
  /** The due diligence lists in force and what they found of this organisation (rules §16). */
  checks: { lists: ReadonlyArray<{ name: string; as_of: string }>; refusal: string | undefined; review: boolean };
  nearby: NonProfitView[];
  similar: NonProfitView[];
  /** The visitor acts for this organisation (an approved claim): the way back to its page, not another claim. */
  acting?: boolean;
}

function others(id: string, title: string, list: readonly NonProfitView[]): Html {
  if (list.length === 0) return html``;
  return html`<section aria-labelledby="${id}"><h2 id="${id}">${title}</h2>
    <ul class="results">${list.map((n) => charityItem(n))}</ul></section>`;
}

/** Which lists the organisation was checked against, their dates, and what they found. */
function diligenceSection(checks: CharityPageView['checks']): Html {
  const found =
    checks.refusal !== undefined
      ? `Grants to it are refused: ${checks.refusal}.`
      : checks.review
        ? 'Its name resembles a name on the sanctions list: an operator is reviewing it, and grants to it wait until then.'
        : checks.lists.length === 0
          ? 'No list has been imported yet.'
          : 'Nothing on these lists stops a grant to it.';
  return html`<section aria-labelledby="checks"><h2 id="checks">Checks before a grant</h2>
    ${checks.lists.length === 0 ? '' : html`<ul>${checks.lists.map((l) => html`<li>${l.name}, as of ${l.as_of}</li>`)}</ul>`}
    <p>${found}</p></section>`;
}

export function charityPage(v: Visitor, c: CharityPageView, state?: FormState): Html {
  const { view: n, profile: p } = c;
  const why = p.ineligible ?? (c.checks.refusal === undefined ? undefined : `${c.checks.refusal.charAt(0).toUpperCase()}${c.checks.refusal.slice(1)}.`);
  const donate = !c.receives
    ? html`<div class="notice error" role="note"><strong>This organisation cannot receive donations.</strong> ${why ?? 'The IRS does not list it as an active, tax-deductible charity.'}</div>`
    : v.session === undefined
      ? html`<p><a class="button" href="/signin?next=${encodeURIComponent(n.public_path)}">Sign in to donate to ${n.name}</a></p>`
      : html`${donationForm(v, { ...state, values: { ein: n.ein, ...state?.values } }, 'charity', { ein: n.ein, name: n.name })}
        <p><a href="/fundraisers/new?ein=${n.ein}">Open a fundraiser for ${n.name}</a></p>`;
  const size =
    p.size === undefined
      ? html`<dd>No figures on file with the IRS (small organisations file a postcard without them; churches file nothing)</dd>`
      : html`<dd>Revenue ${usdWhole(p.size.revenue)}, assets ${usdWhole(p.size.assets)} <span class="muted">(its ${p.size.year} return)</span></dd>`;
  return layout(
    v,
    n.name,
    html`<article class="charity">
    <header class="charity-head"><img src="${n.logo}" alt="" width="64" height="64"><div><h1>${n.name}</h1>
    <p class="muted">${place(n)} · ${n.cause.name}</p></div></header>
    ${donate}
    <h2>What the IRS says</h2>
    <dl class="details"><dt>EIN</dt><dd>${n.ein.slice(0, 2)}-${n.ein.slice(2)}</dd>
    ${p.address.length === 0 ? '' : html`<dt>Address</dt><dd><address>${p.address.map((line, i) => html`${i === 0 ? '' : html`<br>`}${line}`)}</address></dd>`}
    <dt>Kind</dt><dd>${p.kind}</dd>
    <dt>Donations</dt><dd>${p.deductibility}</dd>
    <dt>Status</dt><dd>${p.status}</dd>
    ${p.ruling_year === undefined ? '' : html`<dt>Recognised since</dt><dd>${p.ruling_year}</dd>`}
    ${p.activity === undefined ? '' : html`<dt>Activity</dt><dd>${p.activity}</dd>`}
    ${p.group === undefined ? '' : html`<dt>Group</dt><dd>${p.group}</dd>`}
    <dt>Size</dt>${size}
    ${n.website === null || n.website === '' ? '' : html`<dt>Website</dt><dd><a href="${n.website}" rel="nofollow noopener">${n.website}</a></dd>`}</dl>
    ${diligenceSection(c.checks)}
    ${
      c.acting === true
        ? html`<p><a class="button" href="/charities/${n.ein}/manage">Manage ${n.name}</a> <span class="muted">(you act for it: its grants, payments and bank details)</span></p>`
        : html`<p class="muted">Do you work for ${n.name}? <a href="/charities/${n.ein}/claim">Claim this organisation</a> to see the grants it receives and be paid by direct deposit.</p>`
    }
    ${others('nearby', 'Nearby', c.nearby)}
    ${others('similar', `The largest of ${n.cause.name}${n.state === '' ? '' : ` in ${n.state}`}`, c.similar)}
  </article>`,
  );
}

export interface ProfileView {
  name: string;
  slug: string;
  avatar: string;
  fund_name: string;
  causes: Array<{ name: string }>;
  own: boolean;
  visible: boolean;
}

export interface PublicDonation {
  id: number;
  status: string;
  note?: string;
  created_at: string;
  non_profit: { name: string; public_path: string; city: string; state: string };
}

export function profilePage(v: Visitor, p: ProfileView, donations: { items: PublicDonation[]; meta: { count: number; page: number; last: number } }): Html {
  return layout(
    v,
    p.name,
    html`<article class="profile">
    <header class="profile-head"><img src="${p.avatar}" alt="" width="96" height="96" class="avatar"><div><h1>${p.name}</h1><p class="muted">${p.fund_name}</p>
    ${p.causes.length === 0 ? '' : html`<ul class="tags" aria-label="Causes">${p.causes.map((c) => html`<li class="tag">${c.name}</li>`)}</ul>`}</div></header>
    ${p.own && !p.visible ? html`<p class="notice">Only you can see this page: your profile is hidden. <a href="/settings/profile">Change it</a>.</p>` : ''}
    <h2>Donations</h2>
    ${
      donations.items.length === 0
        ? html`<p class="empty">No public donations yet.</p>`
        : html`<ul class="donations">${donations.items.map(
            (d) => html`<li data-donation="${d.id}">
      <a href="${d.non_profit.public_path}">${d.non_profit.name}</a> <span class="muted">${place(d.non_profit)} · ${day(d.created_at)}</span> ${status(d.status)}
      ${d.note === undefined ? '' : html`<blockquote class="note">${d.note}</blockquote>`}</li>`,
          )}</ul>`
    }
    ${pager(`/${p.slug}`, donations.meta.page, donations.meta.last)}
  </article>`,
  );
}

export interface GiftView {
  code: string;
  name: string;
  amount: number;
  message: string | null;
  status: string;
  ein: string | null;
  giver_name: string;
}

export function giftPage(v: Visitor, g: GiftView, options: { isGiver: boolean; done?: string; error?: string; claimEin?: string; claimChoices?: readonly CharityChoice[] }): Html {
  const path = `/gifts/${g.code}`;
  const closed: Record<string, string> = {
    accepted: 'This gift has been accepted.',
    claimed: 'This gift has been sent to a non-profit.',
    denied: 'This gift was declined.',
  };
  let actions: Html;
  if (g.status !== 'new') actions = html`<p class="notice">${closed[g.status] ?? g.status}</p>`;
  else if (options.isGiver) actions = html`<p class="notice">You sent this gift. Share this page's address with ${g.name}; they choose what happens to it.</p>`;
  else if (v.session === undefined)
    actions = html`<p>To accept, direct or decline this gift, <a href="/signin?next=${encodeURIComponent(path)}">sign in</a> or <a href="/signup?next=${encodeURIComponent(path)}">open a fund</a> (it is free): either brings you back to this page.</p>`;
  else {
    actions = html`<div class="gift-actions">
      <form method="post" action="${path}/accept" class="card">${csrfField(v)}<h2>Keep it in your fund</h2><p>The money goes into your own fund, to give later.</p><button type="submit">Accept the gift</button></form>
      <form method="post" action="${path}/claim" class="card" novalidate>${csrfField(v)}<h2>Send it to a non-profit</h2>
        ${
          options.claimChoices !== undefined && options.claimChoices.length > 0
            ? charityChoices(options.claimChoices)
            : html`<div class="field"><label for="f-ein">Non-profit</label><p class="hint" id="f-ein-hint">Type a name or an EIN.</p>
        <input id="f-ein" name="ein" required aria-describedby="f-ein-hint" data-suggest="claim" autocomplete="off" role="combobox" aria-autocomplete="list" aria-expanded="false" aria-controls="claim-suggestions" value="${options.claimEin ?? ''}"></div>
        <ul class="suggestions" id="claim-suggestions" role="listbox" aria-label="Matching non-profits" hidden></ul><p class="chosen muted" id="claim-chosen" aria-live="polite"></p>`
        }
        <button type="submit">Send ${usd(g.amount)}</button></form>
      <form method="post" action="${path}/deny" class="card">${csrfField(v)}<h2>Decline</h2><p>The money goes back to ${g.giver_name}.</p><button type="submit" class="secondary">Decline the gift</button></form>
    </div>`;
  }
  return layout(
    v,
    `A gift for ${g.name}`,
    html`<article class="gift">
    ${notice(options.done)}
    ${options.error === undefined ? '' : html`<div class="notice error" role="alert">${options.error}</div>`}
    <h1>${g.giver_name} sent ${g.name} a gift of ${usd(g.amount)}</h1>
    ${g.message === null || g.message === '' ? '' : html`<blockquote class="message">${g.message}</blockquote>`}
    ${actions}
  </article>`,
  );
}

/** A page for a refusal or a failure; `code` (the problem code the API would answer) links to its explanation. */
export function errorPage(v: Visitor, status: number, title: string, detail: string, code?: string): Html {
  return layout(
    v,
    title,
    html`<section class="narrow"><h1>${title}</h1><p>${detail}</p><p><a href="/">Home</a></p><p class="muted">Error ${status}${code === undefined ? '' : html`: <a href="/errors/${code}" data-problem="${code}"><code>${code}</code></a>`}</p></section>`,
  );
}

export { notice };
