// Settings: API keys (create, shown once; list; revoke) and the profile.
import { html, day, type Html } from '../html.ts';
import { csrfField, errorSummary, field, layout, notice, select, type FormState } from '../layout.ts';
import type { Visitor } from '../visitor.ts';
import type { ApiKeyView } from '../../modules/keys/index.ts';

type KeyView = ApiKeyView;

function keyRow(v: Visitor, k: KeyView): Html {
  return html`<tr data-key="${k.id}">
    <td><a href="/settings/keys/${k.id}">${k.name}</a></td><td><code>…${k.last4}</code></td><td>${k.mode === 'test' ? 'Sandbox' : 'Live'}</td>
    <td>${day(k.created_at)}</td><td>${k.last_used_at === null ? 'Never' : day(k.last_used_at)}</td>
    <td><form method="post" action="/settings/keys/${k.id}/revoke" class="inline">${csrfField(v)}<button type="submit" class="danger small" aria-label="Revoke the key ${k.name}">Revoke</button></form></td>
  </tr>`;
}

export function keysPage(
  v: Visitor,
  keys: readonly KeyView[],
  options: { created?: { name: string; key: string }; state?: FormState; done?: string; sandbox?: boolean } = {},
): Html {
  const { created, state } = options;
  const modes: Array<[string, string]> =
    options.sandbox === false
      ? [['live', 'Live']]
      : [
          ['live', 'Live'],
          ['test', 'Sandbox'],
        ];
  return layout(
    v,
    'API keys',
    html`<h1>API keys</h1>
    ${notice(options.done)}
    <p>Apps you connect act for you with a key: send it in the <code>X-Api-Key</code> header. Sandbox keys act on a separate test fund and never touch real money.</p>
    ${
      created === undefined
        ? ''
        : html`<div class="notice ok created-key" role="status">
      <p><strong>Your new key “${created.name}”.</strong> Copy it now: it is shown only this once.</p>
      <label for="new-key" class="visually-hidden">The new API key</label>
      <input id="new-key" class="key" readonly value="${created.key}"> <button type="button" data-copy="new-key">Copy key</button>
    </div>`
    }
    <section aria-labelledby="your-keys"><h2 id="your-keys">Your keys</h2>
    ${
      keys.length === 0
        ? html`<p class="empty">No keys yet.</p>`
        : html`<table>
      <thead><tr><th scope="col">Name</th><th scope="col">Ends with</th><th scope="col">Mode</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody>${keys.map((k) => keyRow(v, k))}</tbody></table>`
    }
    </section>
    <form method="post" action="/settings/keys" class="card" novalidate>
      <h2>New key</h2>
      ${errorSummary(state)}
      ${csrfField(v)}
      ${field({ name: 'name', label: 'Name', state, required: true, maxlength: 200, hint: 'What will use it, e.g. "Budget spreadsheet".' })}
      ${select({
        name: 'mode',
        label: 'Mode',
        options: modes,
        state,
      })}
      <button type="submit">Create key</button>
    </form>`,
  );
}

export function keyPage(v: Visitor, k: KeyView): Html {
  return layout(
    v,
    `Key ${k.name}`,
    html`<h1>Key “${k.name}”</h1>
    <dl class="details">
      <dt>Ends with</dt><dd><code>…${k.last4}</code></dd>
      <dt>Mode</dt><dd>${k.mode === 'test' ? 'Sandbox' : 'Live'}</dd>
      <dt>Created</dt><dd>${day(k.created_at)}</dd>
      <dt>Last used</dt><dd>${k.last_used_at === null ? 'Never' : day(k.last_used_at)}</dd>
    </dl>
    <form method="post" action="/settings/keys/${k.id}/revoke">${csrfField(v)}<button type="submit" class="danger">Revoke this key</button></form>
    <p><a href="/settings/keys">All keys</a></p>`,
  );
}

export interface ProfileValues {
  name: string;
  slug: string;
  visible: boolean;
  avatar_url: string;
  fund_name: string;
  cause_ids: number[];
}

export function profileSettingsPage(
  v: Visitor,
  p: ProfileValues,
  causes: ReadonlyArray<{ id: number; name: string }>,
  options: { state?: FormState; done?: string; origin: string },
): Html {
  const { state } = options;
  const chosen = new Set(p.cause_ids);
  return layout(
    v,
    'Profile',
    html`<h1>Profile</h1>
    ${notice(options.done)}
    ${errorSummary(state)}
    <form method="post" action="/settings/profile" class="card" novalidate>
      ${csrfField(v)}
      ${field({ name: 'name', label: 'Name', value: p.name, state, required: true, maxlength: 200, autocomplete: 'name' })}
      ${field({ name: 'slug', label: 'Profile address', value: p.slug, state, required: true, maxlength: 60, hint: `Your page is ${options.origin}/${p.slug}. Lower-case letters, digits and hyphens.` })}
      <div class="field"><label class="choice"><input type="checkbox" name="visible" value="1"${p.visible ? html` checked` : ''}> Show my profile and public donations to others</label></div>
      ${field({ name: 'avatar_url', label: 'Picture URL (optional)', type: 'url', value: p.avatar_url, state, hint: 'An https:// address of an image.' })}
      ${field({ name: 'fund_name', label: 'Fund name', value: p.fund_name, state, required: true, maxlength: 200 })}
      <fieldset class="field causes"><legend>Causes you support</legend>
        ${causes.map((c) => html`<label class="choice"><input type="checkbox" name="cause_ids" value="${c.id}"${chosen.has(c.id) ? html` checked` : ''}> ${c.name}</label>`)}
      </fieldset>
      <button type="submit">Save</button>
    </form>`,
  );
}
