// Opening a fundraiser on the web (rules §22): for an organisation (from its page, or by EIN), a
// title, a story, a goal, its days and what was raised offline. The same use case as the API's.
import { html, type Html } from '../html.ts';
import { csrfField, errorSummary, field, layout, type FormState } from '../layout.ts';
import type { Visitor } from '../visitor.ts';

export function newFundraiserPage(v: Visitor, org: { ein: string; name: string } | undefined, state?: FormState): Html {
  return layout(
    v,
    'Open a fundraiser',
    html`<h1>Open a fundraiser</h1>
    <p>A page of your own that asks others to give to one organisation${org === undefined ? '' : html`, <strong>${org.name}</strong>`}. What it raises is what is given to it here${' '}(and what you say was raised elsewhere); every gift goes to the organisation.</p>
    <form method="post" action="/fundraisers" class="card" novalidate>
      ${errorSummary(state)}
      ${csrfField(v)}
      ${
        org === undefined
          ? field({ name: 'ein', label: 'Organisation (EIN)', state, required: true, maxlength: 10, hint: 'Nine digits, as on its page: 12-3456789.' })
          : html`<input type="hidden" name="ein" value="${org.ein}">`
      }
      ${field({ name: 'title', label: 'Title', state, required: true, maxlength: 120 })}
      ${field({ name: 'story', label: 'Why you raise (optional)', state, textarea: true, maxlength: 5000, hint: 'Shown on its page. A blank line starts a new paragraph.' })}
      ${field({ name: 'goal', label: 'Goal in dollars', state, required: true, extra: html` inputmode="decimal"` })}
      ${field({ name: 'starts_on', label: 'First day (optional)', type: 'date', state, hint: 'Today when empty.' })}
      ${field({ name: 'ends_on', label: 'Last day (optional)', type: 'date', state, hint: 'Open until you end it when empty.' })}
      ${field({ name: 'offline_amount', label: 'Raised elsewhere, in dollars (optional)', state, extra: html` inputmode="decimal"` })}
      <button type="submit">Open the fundraiser</button>
    </form>`,
  );
}
