// The problem codes' pages (`/errors`, `/errors/<code>`: every problem's `type` points here) and
// the event catalogue (`/docs/events`), from the catalogues in shared/problem-codes.ts and the
// webhooks module: what each means and what to do.
import { html, type Html } from '../html.ts';
import { layout } from '../layout.ts';
import type { Visitor } from '../visitor.ts';
import { PROBLEM_CODES, PROBLEMS, type ProblemCode, type ProblemDoc } from '../../shared/problem-codes.ts';
import { EVENT_DOCS } from '../../modules/webhooks/index.ts';

/** Text with `code` spans, as the catalogues write them. */
function prose(text: string): Html {
  return html`${text.split('`').map((part, i) => (i % 2 === 1 ? html`<code>${part}</code>` : part))}`;
}

const EVERY: Record<NonNullable<ProblemDoc['every']>, string> = {
  all: 'Any operation.',
  signed: 'Any operation that needs an API key, an app token or an operator token.',
  body: 'Any operation that takes a body.',
  post: 'Any POST of the donor API (they take an Idempotency-Key).',
};

export function errorsPage(v: Visitor): Html {
  return layout(
    v,
    'Problem codes',
    html`<h1>Problem codes</h1>
      <p>
        Every error the API answers is an <a href="https://www.rfc-editor.org/rfc/rfc9457">RFC 9457</a> problem (<code>application/problem+json</code>) with a stable
        <code>code</code>; its <code>type</code> is this page's address for that code. Match on <code>code</code>, not on <code>detail</code>, which is for people and may change.
        The <a href="/docs">API reference</a> lists each operation's codes; so does <a href="/openapi.json">/openapi.json</a> (<code>x-problem-codes</code>).
      </p>
        <table>
          <thead>
            <tr><th scope="col">Code</th><th scope="col">Title</th><th scope="col">What it means</th></tr>
          </thead>
          <tbody>
            ${PROBLEM_CODES.map((code) => html`<tr id="${code}"><td><a href="/errors/${code}"><code>${code}</code></a></td><td>${PROBLEMS[code].title}</td><td>${prose(PROBLEMS[code].means)}</td></tr>`)}
          </tbody>
        </table>
`,
  );
}

/** One code's page; `operations` are the OpenAPI operations that name it (`GET /v1/donations`). */
export function errorPage(v: Visitor, code: ProblemCode, operations: readonly string[]): Html {
  const entry: ProblemDoc = PROBLEMS[code];
  return layout(
    v,
    `${code}: ${entry.title}`,
    html`<p><a href="/errors">Problem codes</a></p>
      <h1><code>${code}</code>: ${entry.title}</h1>
      <h2>What it means</h2>
      <p id="means">${prose(entry.means)}</p>
      <h2>What to do</h2>
      <p id="todo">${prose(entry.todo)}</p>
      <h2>Where it comes from</h2>
      ${
        entry.every !== undefined
          ? html`<p id="where">${EVERY[entry.every]}</p>`
          : operations.length === 0
            ? html`<p id="where">The web app's pages (not an API operation).</p>`
            : html`<ul id="where">
                ${operations.map((o) => html`<li><code>${o}</code></li>`)}
              </ul>`
      }`,
  );
}

export function eventsPage(v: Visitor): Html {
  return layout(
    v,
    'Events',
    html`<h1>Events</h1>
      <p>
        Every change of a donation, gift, contribution or payment is an event, written with the change. <code>GET /v1/events</code> lists the caller's; webhook endpoints
        (<code>/v1/webhook_endpoints</code>, each with the <code>event_types</code> it wants) receive them signed as Standard Webhooks: a POST of
        <code>{type, timestamp, data}</code> with <code>webhook-id</code>, <code>webhook-timestamp</code> and <code>webhook-signature</code>. A test key's endpoints hear
        the sandbox only.
      </p>
        <table>
          <thead>
            <tr><th scope="col">Type</th><th scope="col">When</th><th scope="col"><code>data</code></th></tr>
          </thead>
          <tbody>
            ${Object.entries(EVENT_DOCS).map(([type, d]) => html`<tr id="${type}"><td><code>${type}</code></td><td>${prose(d.when)}</td><td>${prose(d.data)}</td></tr>`)}
          </tbody>
        </table>
`,
  );
}
