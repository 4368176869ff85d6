// The API reference, rendered on the server from the OpenAPI document the
// routes' own schemas generate (/openapi.json): the donor API at /docs, the
// operator API apart at /docs/operators. Plain HTML in the site's look: it
// shows at once, with no script to wait for (ADR 11).
import { pushTo } from '../../shared/groups.ts';
import { html, type Html } from '../html.ts';
import { layout } from '../layout.ts';
import type { Visitor } from '../visitor.ts';

type Schema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  description?: string;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  default?: unknown;
};
type Parameter = { name: string; in: string; required?: boolean; schema?: Schema; description?: string };
type Operation = {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }>;
  /** The problem codes it may answer with (shared/problem-codes.ts). */
  'x-problem-codes'?: string[];
};
export type OpenApi = { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, Schema> } };

export interface ReferenceBook {
  title: string;
  /** Paths of this book start so. */
  prefix: string;
  intro: Html;
  other: { href: string; label: string };
}

export const DONOR_REFERENCE: ReferenceBook = {
  title: 'API reference',
  prefix: '/v1/',
  intro: html`<p>
    The public API that donors' apps use. Send your API key in <code>X-Api-Key</code> (or <code>Authorization: Bearer</code>); a key that starts <code>alm_test_</code> acts in the
    sandbox, with its own money. Amounts are US dollars with at most two decimals. Errors are <a href="https://www.rfc-editor.org/rfc/rfc9457">RFC 9457</a> problems with a stable
    <code>code</code>, each explained at <a href="/errors">/errors</a>; the events webhooks receive are in <a href="/docs/events">the event catalogue</a>. A POST with an <code>Idempotency-Key</code> header is done once however often it is sent. Every route also answers under <code>/public/api/v1</code>. The
    machine-readable document is <a href="/openapi.json">/openapi.json</a>.
  </p>`,
  other: { href: '/docs/operators', label: 'Operator API' },
};

export const OPERATOR_REFERENCE: ReferenceBook = {
  title: 'Operator API reference',
  prefix: '/admin/v1/',
  intro: html`<p>
    For the people who run the platform: approving and paying donations, recording contributions, suspending users, the audit log and the ledger check. Send an operator token
    (<code>almoner admin token create</code>) as <code>Authorization: Bearer</code>. Operators act in the live book; add <code>?book=test</code> to act in the sandbox's. Every
    action is audited under the token's name.
  </p>`,
  other: { href: '/docs', label: 'Donor API' },
};

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

export function referencePage(v: Visitor, doc: OpenApi, book: ReferenceBook): Html {
  const schemas = doc.components?.schemas ?? {};
  const groups = new Map<string, Array<{ method: string; path: string; op: Operation }>>();
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith(book.prefix)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (op === undefined) continue;
      const tag = op.tags?.[0] ?? 'Other';
      pushTo(groups, tag, { method, path, op });
    }
  }
  const anchor = (method: string, path: string) => `${method}-${path.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '')}`;
  const toc = html`<nav class="card reference-toc" aria-label="Endpoints">
    <p><a href="${book.other.href}">${book.other.label} →</a></p>
    ${[...groups].map(
      ([tag, ops]) =>
        html`<h2>${tag}</h2>
          <ul>
            ${ops.map(
              ({ method, path, op }) =>
                html`<li>
                  <a href="#${anchor(method, path)}"><span class="verb">${method.toUpperCase()}</span> ${path}</a
                  >${op.summary === undefined ? '' : html` <span class="muted">${op.summary}</span>`}
                </li>`,
            )}
          </ul>`,
    )}
  </nav>`;
  const body = [...groups].map(
    ([tag, ops]) =>
      html`<section>
        <h2>${tag}</h2>
        ${ops.map(({ method, path, op }) => operation(anchor(method, path), method, path, op, schemas))}
      </section>`,
  );
  return layout(
    v,
    book.title,
    html`<h1>${book.title}</h1>
      ${book.intro}${toc}${body}`,
  );
}

function operation(id: string, method: string, path: string, op: Operation, schemas: Record<string, Schema>): Html {
  const params = op.parameters ?? [];
  const bodySchema = op.requestBody?.content?.['application/json']?.schema;
  const responses = Object.entries(op.responses ?? {});
  // The description's last line lists the problem codes for OpenAPI readers; here they are links below.
  const description = (op.description ?? '').split(/\n*Problem codes: /)[0] ?? '';
  const codes = op['x-problem-codes'] ?? [];
  return html`<article class="card endpoint" id="${id}">
    <h3><span class="verb">${method.toUpperCase()}</span> <code>${path}</code></h3>
    ${op.summary === undefined ? '' : html`<p>${op.summary}</p>`} ${description === '' ? '' : html`<p class="muted">${description}</p>`}
    ${
      params.length === 0
        ? ''
        : html`<h4>Parameters</h4>
            ${fieldTable(
              params.map((p) => ({ name: p.name, where: p.in, required: p.required === true, schema: p.schema ?? {}, description: p.description })),
              schemas,
            )}`
    }
    ${
      bodySchema === undefined
        ? ''
        : html`<h4>Body (JSON)</h4>
            ${schemaFields(bodySchema, schemas)}`
    }
    <h4>Answers</h4>
    <ul class="answers">
      ${responses.map(([status, r]) => {
        const schema = r.content?.['application/json']?.schema;
        const ok = status.startsWith('2');
        return html`<li>
          <strong>${status}</strong>
          ${typeName(schema ?? {}, schemas) === 'Problem' ? 'a problem (its code below)' : ok && schema !== undefined ? typeName(schema, schemas) : (r.description ?? '')}
          ${
            ok && schema !== undefined && Object.keys(resolve(schema, schemas).properties ?? {}).length > 0
              ? html`<details>
                  <summary>Fields</summary>
                  ${schemaFields(schema, schemas)}
                </details>`
              : ''
          }
        </li>`;
      })}
    </ul>
    ${
      codes.length === 0
        ? ''
        : html`<p class="problem-codes"><strong>Problem codes:</strong> ${codes.map((c, i) => html`${i === 0 ? '' : ', '}<a href="/errors/${c}"><code>${c}</code></a>`)}</p>`
    }
  </article>`;
}

interface Row {
  name: string;
  where?: string;
  required: boolean;
  schema: Schema;
  description?: string | undefined;
}

function fieldTable(rows: readonly Row[], schemas: Record<string, Schema>): Html {
  return html`<table class="fields">
    <thead>
      <tr>
        <th scope="col">Name</th>
        <th scope="col">Type</th>
        <th scope="col">Rules</th>
      </tr>
    </thead>
    <tbody>
      ${rows.map(
        (r) =>
          html`<tr>
            <td>
              <code>${r.name}</code>${r.where === undefined ? '' : html` <span class="muted">(${r.where})</span>`}${r.required ? html` <span class="required">required</span>` : ''}
            </td>
            <td>${typeName(r.schema, schemas)}</td>
            <td>${rules(r.schema, schemas, r.description)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** An object's fields, nested objects and arrays of objects as dotted names (a few levels deep). */
function schemaFields(schema: Schema, schemas: Record<string, Schema>): Html {
  const rows: Row[] = [];
  const walk = (s: Schema, prefix: string, depth: number) => {
    const object = resolve(s, schemas);
    const required = new Set(object.required ?? []);
    for (const [name, child] of Object.entries(object.properties ?? {})) {
      rows.push({ name: `${prefix}${name}`, required: required.has(name), schema: child });
      const inner = resolve(child, schemas);
      const element = inner.items === undefined ? undefined : resolve(inner.items, schemas);
      if (depth < 2 && inner.properties !== undefined) walk(child, `${prefix}${name}.`, depth + 1);
      else if (depth < 2 && element?.properties !== undefined && inner.items !== undefined) walk(inner.items, `${prefix}${name}[].`, depth + 1);
    }
  };
  walk(schema, '', 0);
  return rows.length === 0 ? html`<p class="muted">An empty object.</p>` : fieldTable(rows, schemas);
}

function resolve(schema: Schema, schemas: Record<string, Schema>): Schema {
  const ref = schema.$ref?.replace('#/components/schemas/', '');
  if (ref !== undefined) return schemas[ref] ?? {};
  const nonNull = (schema.anyOf ?? schema.oneOf)?.filter((s) => s.type !== 'null');
  if (nonNull?.length === 1 && nonNull[0] !== undefined) return resolve(nonNull[0], schemas);
  return schema;
}

function typeName(schema: Schema, schemas: Record<string, Schema>): string {
  const ref = schema.$ref?.replace('#/components/schemas/', '');
  if (ref !== undefined) return ref;
  const choices = schema.anyOf ?? schema.oneOf;
  if (choices !== undefined) return choices.map((c) => typeName(c, schemas)).join(' or ');
  if (schema.enum !== undefined) return 'string';
  const type = Array.isArray(schema.type) ? schema.type.join(' or ') : (schema.type ?? 'any');
  if (type === 'array') return `array of ${typeName(schema.items ?? {}, schemas)}`;
  return schema.format === undefined ? type : `${type} (${schema.format})`;
}

function rules(schema: Schema, schemas: Record<string, Schema>, description?: string): Html {
  const s = resolve(schema, schemas);
  const parts: string[] = [];
  const text = description ?? schema.description ?? s.description;
  if (text !== undefined) parts.push(text);
  if (s.enum !== undefined) parts.push(`one of ${s.enum.map((e) => String(e)).join(', ')}`);
  if (s.minimum !== undefined) parts.push(`at least ${s.minimum}`);
  if (s.maximum !== undefined) parts.push(`at most ${s.maximum}`);
  if (s.minLength !== undefined && s.minLength > 0) parts.push(`at least ${s.minLength} characters`);
  if (s.maxLength !== undefined) parts.push(`at most ${s.maxLength} characters`);
  if (s.default !== undefined) parts.push(`default ${JSON.stringify(s.default)}`);
  return html`${parts.join('; ')}`;
}
