// Login with Almoner (ADR 16): the apps a donor connected (what each may do,
// its limit, when it was last used; disconnect), the apps a developer
// registered (client id, the secret shown once), and the consent page an app
// sends a donor to.
import { html, day, usdCents, type Html } from '../html.ts';
import { csrfField, errorSummary, field, layout, notice, type FormState } from '../layout.ts';
import type { Visitor } from '../visitor.ts';
import { usdText } from '../../shared/money.ts';
import type { AppView, ConnectionView } from '../../modules/apps/index.ts';

function connectionRow(v: Visitor, c: ConnectionView): Html {
  return html`<li class="card" data-connection="${c.id}">
    <h3>${c.name}${c.sandbox ? html` <span class="status status-pending">Sandbox</span>` : ''}${c.disabled ? html` <span class="status status-failed">Disabled by the operators</span>` : ''}</h3>
    <ul>${c.scopes.map((s) => html`<li>${s.words}</li>`)}</ul>
    ${c.monthly_limit_cents === null ? '' : html`<p>Monthly limit ${usdCents(c.monthly_limit_cents)}; given this month ${usdCents(c.spent_this_month_cents)}.</p>`}
    <p class="muted">Connected ${day(c.connected_at)} · last used ${c.last_used_at === null ? 'never' : day(c.last_used_at)}</p>
    <form method="post" action="/settings/apps/connections/${c.id}/disconnect" class="inline">${csrfField(v)}<button type="submit" class="danger small" aria-label="Disconnect ${c.name}">Disconnect</button></form>
  </li>`;
}

function appRow(v: Visitor, a: AppView): Html {
  const actions =
    a.disabled_at === null
      ? html`<form method="post" action="/settings/apps/${a.client_id}/secret" class="inline">${csrfField(v)}<button type="submit" class="secondary small" aria-label="New client secret for ${a.name}">New secret</button></form>`
      : '';
  return html`<tr data-app="${a.client_id}"><td>${a.name}</td><td><code>${a.client_id}</code></td><td>${a.book === 'test' ? 'Sandbox' : 'Live'}</td>
    <td>${a.redirect_uris.map((u) => html`<code>${u}</code><br>`)}</td><td>${a.disabled_at === null ? html`<span class="status status-success">Active</span>` : html`<span class="status status-failed">Disabled</span>`}</td><td>${day(a.created_at)}</td>
    <td>${actions}<form method="post" action="/settings/apps/${a.client_id}/delete" class="inline">${csrfField(v)}<button type="submit" class="danger small" aria-label="Delete ${a.name}">Delete</button></form></td></tr>`;
}

export function appsPage(
  v: Visitor,
  connections: readonly ConnectionView[],
  apps: readonly AppView[],
  options: { done?: string; state?: FormState; created?: { client_id: string; secret: string }; sandbox: boolean },
): Html {
  const { created } = options;
  return layout(
    v,
    'Apps',
    html`<h1>Apps</h1>
    ${created === undefined ? notice(options.done) : ''}
    <section aria-labelledby="connected"><h2 id="connected">Connected apps</h2>
    <p>Apps you allowed to act for you with “Login with Almoner”. Disconnecting one ends its access at once.</p>
    ${connections.length === 0 ? html`<p class="empty">No connected apps.</p>` : html`<ul class="plain">${connections.map((c) => connectionRow(v, c))}</ul>`}
    </section>
    <section aria-labelledby="yours"><h2 id="yours">Your apps</h2>
    <p>Build an app that donors sign in to with their Almoner account. It uses OpenID Connect (authorization code flow with PKCE) from <code>/.well-known/openid-configuration</code>.</p>
    ${
      created === undefined
        ? ''
        : html`<div class="notice ok created-key" role="status">
      <p><strong>${options.done === 'app_secret' ? 'A new client secret.' : 'Your app is registered.'}</strong> Its client id is <code>${created.client_id}</code>. Copy the client secret now: it is shown only this once.</p>
      <label for="new-secret" class="visually-hidden">The client secret</label>
      <input id="new-secret" class="key" readonly value="${created.secret}"> <button type="button" data-copy="new-secret">Copy secret</button>
    </div>`
    }
    ${
      apps.length === 0
        ? html`<p class="empty">No apps yet.</p>`
        : html`<table><thead><tr><th scope="col">Name</th><th scope="col">Client id</th><th scope="col">Book</th><th scope="col">Redirect URIs</th><th scope="col">State</th><th scope="col">Registered</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody>${apps.map((a) => appRow(v, a))}</tbody></table>`
    }
    <form method="post" action="/settings/apps" class="card" novalidate>
      <h3>Register an app</h3>
      ${errorSummary(options.state)}
      ${csrfField(v)}
      ${field({ name: 'name', label: 'Name', state: options.state, required: true, maxlength: 100, hint: 'Donors see it when they are asked to allow it.' })}
      ${field({ name: 'redirect_uris', label: 'Redirect URIs', state: options.state, required: true, textarea: true, hint: 'One per line, exact: https://, or http:// on localhost.' })}
      ${field({ name: 'logo_uri', label: 'Logo address (optional)', type: 'url', state: options.state, hint: 'An https address of a square image.' })}
      ${options.sandbox ? html`<label class="choice"><input type="checkbox" name="sandbox" value="1"${options.state?.values?.sandbox === '1' ? html` checked` : ''}> Sandbox app: it acts only on donors' sandbox funds, with test money</label>` : ''}
      <button type="submit">Register app</button>
    </form>
    </section>`,
  );
}

export interface ConsentView {
  uid: string;
  app: AppView;
  /** Everything the app may do once allowed: what it holds already and what it asks now. */
  scopes: readonly { scope: string; words: string }[];
  /** Where this sign-in sends the donor back to: the redirect URI of this flow. */
  redirectUri: string;
  /** It may move money (donate, gifts): the monthly limit is asked, starting from the one set before. */
  movesMoney: boolean;
  currentLimitCents: number | null;
}

export function consentPage(v: Visitor, c: ConsentView, state?: FormState): Html {
  const host = URL.parse(c.redirectUri)?.host ?? c.redirectUri;
  return layout(
    v,
    `Allow ${c.app.name}?`,
    html`<section class="narrow">
    ${c.app.logo_uri === null ? '' : html`<img src="${c.app.logo_uri}" alt="" width="64" height="64" class="app-logo">`}
    <h1>Allow ${c.app.name} to act for you?</h1>
    ${c.app.book === 'test' ? html`<p class="notice">This is a sandbox app: it sees and moves only your sandbox fund's test money, never real money.</p>` : ''}
    <p>${c.app.name} (<strong>${host}</strong>) asks to:</p>
    <ul>${c.scopes.map((s) => html`<li>${s.words}</li>`)}</ul>
    <form method="post" action="/oauth/interaction/${c.uid}" novalidate>
      ${errorSummary(state)}
      ${csrfField(v)}
      ${
        c.movesMoney
          ? field({
              name: 'monthly_limit',
              label: c.currentLimitCents === null ? 'Monthly limit in dollars (optional)' : 'Monthly limit in dollars',
              state,
              ...(c.currentLimitCents === null ? {} : { value: usdText(c.currentLimitCents).slice(1) }),
              hint:
                c.currentLimitCents === null
                  ? 'The most this app may give and send as gifts from your fund in a calendar month. Leave empty for no limit.'
                  : `The most this app may give and send as gifts from your fund in a calendar month; now ${usdText(c.currentLimitCents)}. Left empty, it stays; to remove it, disconnect the app in Apps.`,
            })
          : ''
      }
      <div class="actions">
        <button type="submit" name="decision" value="allow">Allow</button>
        <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
      </div>
    </form>
    <p class="muted">You can disconnect it at any time in <a href="/settings/apps">Apps</a>.</p>
    </section>`,
  );
}

/** After sign-in, back to the app's flow: a new navigation (not a form's redirect), so the site's form-action policy does not stop it. */
export function continuePage(v: Visitor, to: string): Html {
  return layout(v, 'Continuing', html`<section class="narrow"><h1>Continuing…</h1><p><a href="${to}" id="continue">Continue</a></p></section>`);
}
