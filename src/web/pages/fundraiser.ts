// A fundraiser's public page (rules §22): its organisation, progress read from its donations,
// what its matches give, its newest supporters as each donation lets, and a donate form for a
// signed-in donor while it is open (the dashboard's donation form, naming the fundraiser).
import { html, day, usd, type Html } from '../html.ts';
import { layout, notice, type FormState } from '../layout.ts';
import type { Visitor } from '../visitor.ts';
import type { fundraiserForViewer } from '../../modules/fundraisers/index.ts';
import { donationForm } from './dashboard.ts';

export type FundraiserView = Awaited<ReturnType<typeof fundraiserForViewer>>;

function progressSection(f: FundraiserView): Html {
  const m = f.matching;
  return html`<section aria-labelledby="progress"><h2 id="progress">Raised</h2>
    <p><strong>${usd(f.raised)}</strong> of ${usd(f.goal)} <span class="muted">(${f.percent}%, ${f.donations} donation${f.donations === 1 ? '' : 's'}${f.offline_amount > 0 ? html`, ${usd(f.offline_amount)} of it raised offline` : ''})</span></p>
    <progress max="100" value="${f.percent}" aria-label="Raised of the goal">${f.percent}%</progress>
    ${
      m.matched === 0 && m.matchers === 0
        ? ''
        : html`<p>Matched so far: <strong>${usd(m.matched)}</strong>.${m.matchers === 0 ? '' : html` ${usd(m.remaining)} more is held to match donations still to come.`}</p>`
    }
  </section>`;
}

function supportersSection(f: FundraiserView): Html {
  const supporters = f.supporters ?? [];
  return html`<section aria-labelledby="supporters"><h2 id="supporters">Supporters</h2>
    ${
      supporters.length === 0
        ? html`<p class="empty">No donations yet: be the first.</p>`
        : html`<ul class="plain">${supporters.map((s) => html`<li>${s.name ?? 'Anonymous'} <span class="muted">· ${day(s.created_at)}</span></li>`)}</ul>`
    }
  </section>`;
}

export function fundraiserPage(v: Visitor, f: FundraiserView, options: { state?: FormState; done?: string } = {}): Html {
  const org = f.non_profit;
  const donate =
    f.status !== 'open'
      ? html`<p class="notice">${f.status === 'ended' ? 'This fundraiser has ended.' : `This fundraiser opens on ${f.starts_on}.`} You can still <a href="${org.public_path}">give to ${org.name}</a>.</p>`
      : v.session === undefined
        ? html`<p><a class="button" href="/signin?next=${encodeURIComponent(`/fundraisers/${f.id}`)}">Sign in to donate</a></p>`
        : donationForm(v, options.state, 'donate', { ein: org.ein, name: org.name, fundraiser_id: f.id });
  return layout(
    v,
    f.title,
    html`<article class="fundraiser">
    <header><h1>${f.title}</h1>
    <p class="muted">For <a href="${org.public_path}">${org.name}</a>${f.organizer === null ? '' : html` · by ${f.organizer.name}`}${f.ends_on === null ? '' : html` · until ${f.ends_on}`}</p></header>
    ${notice(options.done)}
    ${progressSection(f)}
    ${f.story === '' ? '' : html`<section aria-labelledby="story"><h2 id="story">Why</h2>${f.story.split(/\n{2,}/).map((p) => html`<p>${p}</p>`)}</section>`}
    <section aria-labelledby="give"><h2 id="give">Give</h2>${donate}</section>
    ${supportersSection(f)}
  </article>`,
  );
}
