// A donate link's confirmation (docs/rules.md §23): the organisation, the amount (prefilled, the
// donor may change it), how often, and what the link asks the charity to be told; nothing is
// given until the donor confirms. The form is the dashboard's donation (or recurring donation)
// form, carrying the link's fields.
import { html, type Html } from '../html.ts';
import { csrfField, errorSummary, field, layout, select, type FormState } from '../layout.ts';
import type { Visitor } from '../visitor.ts';
import type { DonateLink } from '../donate-link.ts';

const HIDDEN = ['designation', 'dedication', 'share', 'external_id', 'metadata', 'success_url', 'exit_url', 'app'] as const;

export function donateLinkPage(v: Visitor, org: { ein: string; name: string; public_path: string }, link: DonateLink, state?: FormState): Html {
  const once = link.frequency === 'once';
  const values = { amount: link.amount, ...state?.values };
  const cancel = link.exit_url === '' ? org.public_path : link.exit_url;
  return layout(
    v,
    `Give to ${org.name}`,
    html`<section class="narrow"><h1>Give to ${org.name}</h1>
    ${link.app_name === undefined ? '' : html`<p class="muted">From a link of ${link.app_name}. Nothing is given until you confirm.</p>`}
    <form method="post" action="${once ? '/dashboard/donations' : '/dashboard/scheduled'}" class="card" novalidate>
      ${state === undefined ? '' : errorSummary(state, 'link')}
      ${csrfField(v)}
      <input type="hidden" name="ein" value="${org.ein}"><input type="hidden" name="from" value="link">
      ${once ? '' : html`<input type="hidden" name="frequency" value="${link.frequency === 'monthly' ? 'Monthly' : 'Yearly'}">`}
      ${HIDDEN.map((name) => (link[name] === '' ? '' : html`<input type="hidden" name="${name}" value="${link[name]}">`))}
      <p class="muted">${org.name} · EIN ${org.ein.slice(0, 2)}-${org.ein.slice(2)}${once ? '' : html` · ${link.frequency === 'monthly' ? 'every month' : 'every year'}, from today`}</p>
      ${field({ name: 'amount', form: 'link', label: 'Amount (USD)', state: { ...state, values }, required: true, hint: 'At least $10.', extra: html` inputmode="decimal"` })}
      ${link.designation === '' ? '' : html`<p>For: ${link.designation}</p>`}
      ${link.dedication === '' ? '' : html`<p>In honour of: ${link.dedication}</p>`}
      ${
        once
          ? select({
              name: 'visibility',
              form: 'link',
              label: 'Who can see it',
              options: [
                ['public', 'Anyone who can see my profile'],
                ['private', 'Only me'],
              ],
              state,
            })
          : ''
      }
      <button type="submit">${once ? 'Donate' : link.frequency === 'monthly' ? 'Donate every month' : 'Donate every year'}</button> <a href="${cancel}">Cancel</a>
    </form></section>`,
  );
}
