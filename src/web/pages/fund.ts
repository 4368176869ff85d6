// The fund's members, the funds one may act on, the requests waiting, and an
// invitation's page (rules §20).
import { html, usd, usdCents, day, type Html } from '../html.ts';
import { csrfField, errorSummary, field, layout, notice, select, status, type FormState } from '../layout.ts';
import type { Visitor } from '../visitor.ts';

export const ROLE_LABEL: Record<string, string> = { organizer: 'Organizer', advisor: 'Advisor', family: 'Family member' };
/** "a" or "an" before a word, by its sound's first letter: an Organizer, an Advisor, a Family member. */
export const articleOf = (word: string) => (/^[aeiou]/i.test(word) ? 'an' : 'a');
const ROLE_CHOICES = [
  ['family', 'Family member: sees the fund, asks to give'],
  ['advisor', 'Advisor: gives, invests, sees everything'],
  ['organizer', 'Organizer: everything, including members'],
] as const;

export interface FundView {
  role: string;
  actor_id: number;
  fund_name: string;
  members: Array<{ id: number; role: string; status: string; user: { id: number; name: string } | null; email: string | null; invited_at: string }>;
  funds: Array<{ id: number; name: string; holder: { name: string }; role: string; current: boolean }>;
  requests: Array<{
    id: number;
    amount: number;
    non_profit: string;
    requester: string | null;
    note: string | null;
    created_at: string;
    request_expires_at: string | null;
    actor_id: number | null;
  }>;
  activity: Array<{ kind: string; id: number; at: string; amount_cents: number; status: string; what: string; by: string | null; decided_by: string | null }>;
}

const KIND_WORDS: Record<string, string> = { donation: 'Donation to', gift: 'Gift to', contribution: 'Money added:', exchange: 'Asked for' };

export function fundPage(v: Visitor, data: FundView, options: { state?: FormState; done?: string } = {}): Html {
  const organizer = data.role === 'organizer';
  const decides = data.role !== 'family';
  return layout(
    v,
    'Your fund',
    html`<h1>${data.fund_name}</h1>
    ${notice(options.done)}
    ${errorSummary(options.state)}
    <p>You are ${articleOf(ROLE_LABEL[data.role] ?? data.role)} <strong>${ROLE_LABEL[data.role] ?? data.role}</strong> of this fund.${data.role === 'family' ? ' Your donations are requests an organizer or advisor approves.' : ''}</p>
    ${
      data.funds.length > 1
        ? html`<section aria-labelledby="funds"><h2 id="funds">Your funds</h2><ul class="plain">
        ${data.funds.map(
          (f) => html`<li>${f.name} <span class="muted">(${f.holder.name}'s; you are ${ROLE_LABEL[f.role] ?? f.role})</span>
          ${f.current ? html`<strong>you act on this fund</strong>` : html`<form method="post" action="/fund/current" class="inline">${csrfField(v)}<input type="hidden" name="fund_id" value="${f.id}"><button type="submit" class="secondary small">Act on this fund</button></form>`}</li>`,
        )}</ul></section>`
        : ''
    }
    <section aria-labelledby="requests"><h2 id="requests">Requests waiting</h2>
    ${
      data.requests.length === 0
        ? html`<p class="muted">No request is waiting.</p>`
        : html`<ul class="plain">${data.requests.map(
            (
              r,
            ) => html`<li class="card"><p><strong>${r.requester ?? 'A member'}</strong> asks to give <strong>${usd(r.amount)}</strong> to ${r.non_profit} <span class="muted">(asked ${day(r.created_at)}, lapses ${day(r.request_expires_at)})</span></p>
            ${r.note === null ? '' : html`<p class="muted">${r.note}</p>`}
            ${
              decides
                ? html`<form method="post" action="/fund/requests/${r.id}/approve" class="inline">${csrfField(v)}<button type="submit">Approve</button></form>
            <form method="post" action="/fund/requests/${r.id}/decline" class="inline">${csrfField(v)}<label for="reason-${r.id}">Reason</label> <input id="reason-${r.id}" name="reason" required maxlength="500"> <button type="submit" class="secondary">Decline</button></form>`
                : ''
            }</li>`,
          )}</ul>`
    }</section>
    <section aria-labelledby="activity"><h2 id="activity">Who did what</h2>
    ${
      data.activity.length === 0
        ? html`<p class="muted">Nothing yet.</p>`
        : html`<table><thead><tr><th scope="col">When</th><th scope="col">What</th><th scope="col">Amount</th><th scope="col">Status</th><th scope="col">By</th></tr></thead><tbody>
      ${data.activity.map(
        (
          a,
        ) => html`<tr><td>${day(a.at)}</td><td>${KIND_WORDS[a.kind] ?? a.kind} ${a.what.replaceAll('_', ' ')}</td><td>${a.kind === 'exchange' ? '' : usdCents(a.amount_cents)}</td><td>${status(a.status)}</td>
        <td>${a.by ?? 'the platform'}${a.decided_by === null || a.decided_by === a.by ? '' : html`, approved by ${a.decided_by}`}</td></tr>`,
      )}</tbody></table>`
    }</section>
    <section aria-labelledby="members"><h2 id="members">Members</h2>
    <table><thead><tr><th scope="col">Who</th><th scope="col">Role</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody>
    ${data.members.map(
      (m) => html`<tr><td>${m.user?.name ?? m.email ?? ''}${m.status === 'invited' ? html` <span class="muted">(invited ${day(m.invited_at)})</span>` : ''}</td>
      <td>${
        organizer
          ? html`<form method="post" action="/fund/members/${m.id}/role" class="inline">${csrfField(v)}<label class="visually-hidden" for="role-${m.id}">Role of ${m.user?.name ?? m.email ?? ''}</label>
          <select id="role-${m.id}" name="role">${ROLE_CHOICES.map(([value]) => html`<option value="${value}"${m.role === value ? html` selected` : ''}>${ROLE_LABEL[value]}</option>`)}</select>
          <button type="submit" class="secondary small">Change</button></form>`
          : (ROLE_LABEL[m.role] ?? m.role)
      }</td>
      <td>${
        m.user?.id === data.actor_id
          ? html`<form method="post" action="/fund/members/${m.id}/remove" class="inline">${csrfField(v)}<button type="submit" class="secondary small">Leave this fund</button></form>`
          : organizer
            ? html`<form method="post" action="/fund/members/${m.id}/remove" class="inline">${csrfField(v)}<button type="submit" class="secondary small">${m.status === 'invited' ? 'Withdraw the invitation' : 'Remove'}</button></form>`
            : ''
      }</td></tr>`,
    )}</tbody></table></section>
    ${
      organizer
        ? html`<form method="post" action="/fund/members" class="card" novalidate>
      <h2 id="invite">Invite someone to give with you</h2>
      ${csrfField(v)}
      ${field({ name: 'email', form: 'invite', label: 'Their e-mail address', state: options.state, type: 'email', required: true })}
      ${select({ name: 'role', form: 'invite', label: 'Role', options: ROLE_CHOICES, value: options.state?.values?.role ?? 'family', state: options.state })}
      <button type="submit">Send the invitation</button>
    </form>`
        : ''
    }`,
  );
}

export function joinPage(
  v: Visitor,
  invitation: { fund_name: string; inviter: string; role: string; email: string | null; token: string },
  options: { state?: FormState; signedInAs?: string | undefined } = {},
): Html {
  const next = encodeURIComponent(`/join/${invitation.token}`);
  const signedIn = v.session !== undefined;
  return layout(
    v,
    'An invitation',
    html`<h1>${invitation.inviter} invites you to ${invitation.fund_name}</h1>
    ${errorSummary(options.state)}
    <p>You would be ${articleOf(ROLE_LABEL[invitation.role] ?? invitation.role)} <strong>${ROLE_LABEL[invitation.role] ?? invitation.role}</strong> of the fund. The invitation went to <strong>${invitation.email ?? ''}</strong>: accept it with the account of that address.</p>
    ${
      signedIn
        ? html`<form method="post" action="/join/${invitation.token}" class="card">${csrfField(v)}<button type="submit">Accept and give together</button></form>`
        : html`<p><a class="button" href="/signup?next=${next}${invitation.email === null || invitation.email === undefined ? '' : `&email=${encodeURIComponent(invitation.email)}`}">Sign up with ${invitation.email ?? 'that address'}</a> or <a href="/signin?next=${next}">sign in</a> to accept.</p>`
    }`,
  );
}
