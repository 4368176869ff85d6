// Settings: webhooks (rules §12). Endpoints with their state; a new one's
// secret shown once; an endpoint's recent attempts with status and response
// time; send a test event, rotate the secret, pause, delete.
import { html, day, type Html } from '../html.ts';
import { csrfField, errorSummary, field, layout, notice, type FormState } from '../layout.ts';
import type { Visitor } from '../visitor.ts';

export interface EndpointView {
  id: number;
  url: string;
  description: string;
  event_types: string[];
  disabled: boolean;
  disabled_reason: string | null;
  failing_since: string | null;
  created_at: string;
}

export interface AttemptView {
  at: string;
  event_type: string;
  message_id: string;
  status_code: number | null;
  duration_ms: number;
  succeeded: boolean;
  error: string | null;
}

function state(e: EndpointView): Html {
  if (e.disabled) return html`<span class="status status-failed">Disabled</span>`;
  if (e.failing_since !== null) return html`<span class="status status-pending">Failing since ${day(e.failing_since)}</span>`;
  return html`<span class="status status-success">Active</span>`;
}

/** The secret, shown once after it was made or rotated. */
function secretNotice(secret: { id: number; secret: string } | undefined): Html {
  if (secret === undefined) return html``;
  return html`<div class="notice ok created-key" role="status">
    <p><strong>The signing secret of endpoint ${secret.id}.</strong> Copy it now: it is shown only this once. Verify each delivery's <code>webhook-signature</code> with it (any Standard Webhooks library does).</p>
    <label for="new-secret" class="visually-hidden">The signing secret</label>
    <input id="new-secret" class="key" readonly value="${secret.secret}"> <button type="button" data-copy="new-secret">Copy secret</button>
  </div>`;
}

export function webhooksPage(
  v: Visitor,
  endpoints: readonly EndpointView[],
  eventTypes: readonly string[],
  options: { state?: FormState; done?: string; secret?: { id: number; secret: string } } = {},
): Html {
  const chosen = new Set((options.state?.values?.event_types ?? '').split(',').filter((t) => t !== ''));
  return layout(
    v,
    'Webhooks',
    html`<h1>Webhooks</h1>
    ${notice(options.done)}
    ${secretNotice(options.secret)}
    <p>Your app hears of what happens in your fund (donations, gifts, contributions) the moment it does: each event is sent as a signed POST to your endpoint, retried for about three days until it answers 2xx.</p>
    <section aria-labelledby="endpoints"><h2 id="endpoints">Your endpoints</h2>
    ${
      endpoints.length === 0
        ? html`<p class="empty">No endpoints yet.</p>`
        : html`<table>
      <thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">State</th><th scope="col">Added</th></tr></thead>
      <tbody>${endpoints.map(
        (
          e,
        ) => html`<tr data-endpoint="${e.id}"><td><a href="/settings/webhooks/${e.id}">${e.url}</a>${e.description === '' ? '' : html`<br><span class="muted">${e.description}</span>`}</td>
        <td>${e.event_types.length === 0 ? 'All' : e.event_types.join(', ')}</td><td>${state(e)}</td><td>${day(e.created_at)}</td></tr>`,
      )}</tbody></table>`
    }
    </section>
    <form method="post" action="/settings/webhooks" class="card" novalidate>
      <h2>New endpoint</h2>
      ${errorSummary(options.state)}
      ${csrfField(v)}
      ${field({ name: 'url', label: 'URL', type: 'url', state: options.state, required: true, hint: 'An https address on the internet that answers 2xx within 15 seconds.' })}
      ${field({ name: 'description', label: 'Description (optional)', state: options.state, maxlength: 500 })}
      <fieldset class="field"><legend>Events (none ticked: all of them)</legend>
        ${eventTypes.map((t) => html`<label class="choice"><input type="checkbox" name="event_types" value="${t}"${chosen.has(t) ? html` checked` : ''}> ${t}</label>`)}
      </fieldset>
      <button type="submit">Add endpoint</button>
    </form>`,
  );
}

export function endpointPage(v: Visitor, e: EndpointView, attempts: readonly AttemptView[], options: { done?: string; secret?: { id: number; secret: string } } = {}): Html {
  return layout(
    v,
    `Webhook endpoint ${e.id}`,
    html`<p><a href="/settings/webhooks">← Webhooks</a></p>
    <h1>${e.url}</h1>
    ${notice(options.done)}
    ${secretNotice(options.secret)}
    <p>${state(e)} · events: ${e.event_types.length === 0 ? 'all' : e.event_types.join(', ')}${e.description === '' ? '' : html` · ${e.description}`}</p>
    ${e.disabled_reason === null ? '' : html`<p class="notice error">${e.disabled_reason}</p>`}
    <div class="actions">
      <form method="post" action="/settings/webhooks/${e.id}/test" class="inline">${csrfField(v)}<button type="submit" class="secondary small">Send a test event</button></form>
      <form method="post" action="/settings/webhooks/${e.id}/rotate" class="inline">${csrfField(v)}<button type="submit" class="secondary small">Rotate the secret</button></form>
      <form method="post" action="/settings/webhooks/${e.id}/${e.disabled ? 'enable' : 'disable'}" class="inline">${csrfField(v)}<button type="submit" class="secondary small">${e.disabled ? 'Enable' : 'Pause'}</button></form>
      <form method="post" action="/settings/webhooks/${e.id}/delete" class="inline">${csrfField(v)}<button type="submit" class="danger small">Delete</button></form>
    </div>
    <section aria-labelledby="attempts"><h2 id="attempts">Recent attempts</h2>
    ${
      attempts.length === 0
        ? html`<p class="empty">Nothing sent yet.</p>`
        : html`<table>
      <thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">Answer</th><th scope="col" class="num">Time</th><th scope="col">Error</th></tr></thead>
      <tbody>${attempts.map(
        (
          a,
        ) => html`<tr data-attempt><td>${new Date(a.at).toISOString().replace('T', ' ').slice(0, 19)} UTC</td><td>${a.event_type}<br><code class="muted">${a.message_id}</code></td>
        <td>${a.succeeded ? html`<span class="status status-success">${a.status_code}</span>` : html`<span class="status status-failed">${a.status_code ?? 'none'}</span>`}</td>
        <td class="num">${a.duration_ms} ms</td><td>${a.error ?? ''}</td></tr>`,
      )}</tbody></table>`
    }
    </section>`,
  );
}
