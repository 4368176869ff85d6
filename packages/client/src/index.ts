// The Almoner API client: typed by the server's own OpenAPI document
// (schema.ts, generated), fetch only (Node 18+ and browsers), no runtime
// dependency. Every POST carries an Idempotency-Key kept across its retries;
// requests are retried with backoff on 429 (honouring Retry-After), 503 and
// network errors; errors are AlmonerError with the problem's code; lists
// page with `list` or iterate every item with `all`.
import type { components, paths } from './schema.ts';

export type { components, paths };
export type Schemas = components['schemas'];

type Method = 'get' | 'post' | 'patch' | 'delete';
type Op<P extends keyof paths, M extends Method> = paths[P] extends Record<M, infer O> ? O : never;
type JsonOf<R> = R extends { content: { 'application/json': infer T } } ? T : never;
/** What an operation answers when it succeeds (its 200, 201 or 202 JSON). */
export type Answer<P extends keyof paths, M extends Method> =
  Op<P, M> extends { responses: infer R }
    ? R extends { 200: infer A }
      ? JsonOf<A>
      : R extends { 201: infer A }
        ? JsonOf<A>
        : R extends { 202: infer A }
          ? JsonOf<A>
          : never
    : never;
/** What an operation takes as its JSON body. */
export type BodyOf<P extends keyof paths, M extends Method> = Op<P, M> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
/** Its query parameters. */
export type QueryOf<P extends keyof paths, M extends Method> = Op<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

export interface Problem {
  type?: string;
  title?: string;
  status: number;
  detail?: string;
  code: string;
  request_id?: string;
  errors?: Array<{ field: string; code: string; message: string }>;
}

/** An answer that was not a success: the problem's status, `code`, `request_id` and field errors. */
export class AlmonerError extends Error {
  readonly status: number;
  readonly code: string;
  readonly requestId: string | undefined;
  readonly errors: Array<{ field: string; code: string; message: string }>;
  readonly problem: Problem | undefined;

  constructor(status: number, problem: Problem | undefined, fallback: string) {
    super(problem?.detail ?? problem?.title ?? fallback);
    this.name = 'AlmonerError';
    this.status = status;
    this.code = problem?.code ?? (status === 0 ? 'network_error' : 'http_error');
    this.requestId = problem?.request_id;
    this.errors = problem?.errors ?? [];
    this.problem = problem;
  }
}

export interface ClientOptions {
  /** The server, e.g. https://giving.example.org (default http://127.0.0.1:3000). */
  baseUrl?: string;
  apiKey: string;
  /** How many times a request is tried again after a 429, a 503 or a network error (default 3). */
  retries?: number;
  /** Another fetch (a test's, a proxy's). */
  fetch?: typeof fetch;
  /** Waits between tries (tests shorten it). */
  sleep?: (ms: number) => Promise<void>;
}

interface Call {
  query?: Record<string, string | number | boolean | undefined> | undefined;
  body?: unknown;
  accept?: string;
}

/** How long to wait before the next try: Retry-After when the server says, else exponential backoff with jitter. */
function waitMs(response: Response | undefined, attempt: number): number {
  const header = response?.headers.get('retry-after');
  if (header !== null && header !== undefined) {
    const seconds = Number(header);
    if (Number.isFinite(seconds)) return Math.min(60_000, Math.max(0, seconds * 1000));
    const at = Date.parse(header);
    if (!Number.isNaN(at)) return Math.min(60_000, Math.max(0, at - Date.now()));
  }
  return Math.min(10_000, 250 * 2 ** attempt) * (0.75 + Math.random() * 0.5);
}

/**
 * A fresh Idempotency-Key: a UUID of version 7 (RFC 9562), the milliseconds since 1970 in its
 * first 48 bits and 74 random bits after them, so that the keys a client makes sort in the order
 * it made them. Almoner keeps its keys' records in an index led by the key; keys made in order
 * land together at its end, where random ones would each write a page of their own (Almoner's
 * ADR 34). Made from a random UUID (version 4) with its first 48 bits replaced by the
 * time and its version by 7: the same layout, its other bits still random.
 */
export function idempotencyKey(now: number = Date.now()): string {
  const ms = Math.max(0, Math.floor(now)).toString(16).padStart(12, '0').slice(-12);
  // 'xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx': after the version digit, 74 random bits and the variant.
  return `${ms.slice(0, 8)}-${ms.slice(8, 12)}-7${randomUuid().slice(15)}`;
}

/**
 * A random UUID (version 4): the runtime's where it has one (Node 19+, browsers on https or
 * localhost), else one made from `getRandomValues`, else (Node 18, which keeps Web Crypto off the
 * global) from Math.random: a key must be unique per request, not secret.
 */
function randomUuid(): string {
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string; getRandomValues?: (array: Uint8Array) => Uint8Array } }).crypto;
  if (typeof crypto?.randomUUID === 'function') return crypto.randomUUID();
  const bytes = new Uint8Array(16);
  if (typeof crypto?.getRandomValues === 'function') crypto.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function createClient(options: ClientOptions) {
  const base = (options.baseUrl ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const retries = options.retries ?? 3;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));

  async function send(method: string, path: string, call: Call = {}): Promise<Response> {
    const url = new URL(`${base}${path}`);
    for (const [k, v] of Object.entries(call.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { 'x-api-key': options.apiKey, accept: call.accept ?? 'application/json' };
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    // One key for every try of this request: the server does the work once.
    if (method === 'POST') headers['idempotency-key'] = idempotencyKey();
    for (let attempt = 0; ; attempt++) {
      let response: Response | undefined;
      try {
        response = await doFetch(url, { method, headers, ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }) });
      } catch (error) {
        if (attempt >= retries) throw new AlmonerError(0, undefined, `could not reach ${base}: ${(error as Error).message}`);
        await sleep(waitMs(undefined, attempt));
        continue;
      }
      if ((response.status === 429 || response.status === 503) && attempt < retries) {
        await response.body?.cancel();
        await sleep(waitMs(response, attempt));
        continue;
      }
      if (!response.ok) {
        const text = await response.text();
        let problem: Problem | undefined;
        try {
          problem = JSON.parse(text) as Problem;
        } catch {
          problem = undefined;
        }
        throw new AlmonerError(response.status, problem, `${method} ${path} answered ${response.status}`);
      }
      return response;
    }
  }

  async function json<T>(method: string, path: string, call: Call = {}): Promise<T> {
    return (await (await send(method, path, call)).json()) as T;
  }

  type Page<T> = { items: T[]; meta: { count: number; page: number; last: number } };
  /** Every item of a list, page after page. */
  async function* every<T>(list: (page: number) => Promise<Page<T>>): AsyncGenerator<T> {
    for (let page = 1; ; page++) {
      const answer = await list(page);
      yield* answer.items;
      if (page >= answer.meta.last || answer.items.length === 0) return;
    }
  }
  const seg = (value: string | number) => encodeURIComponent(String(value));

  const donations = {
    list: (query: QueryOf<'/v1/donations', 'get'> = {}) => json<Answer<'/v1/donations', 'get'>>('GET', '/v1/donations', { query }),
    all: (perPage = 100) => every((page) => donations.list({ page, per_page: perPage })),
    get: (id: number) => json<Answer<'/v1/donations/{donation_id}', 'get'>>('GET', `/v1/donations/${seg(id)}`),
    create: (body: BodyOf<'/v1/donations', 'post'>) => json<Answer<'/v1/donations', 'post'>>('POST', '/v1/donations', { body }),
    cancel: (id: number) => json<Answer<'/v1/donations/{donation_id}', 'delete'>>('DELETE', `/v1/donations/${seg(id)}`),
  };
  const gifts = {
    list: (query: QueryOf<'/v1/gifts', 'get'> = {}) => json<Answer<'/v1/gifts', 'get'>>('GET', '/v1/gifts', { query }),
    all: (perPage = 100) => every((page) => gifts.list({ page, per_page: perPage })),
    get: (code: string) => json<Answer<'/v1/gifts/{code}', 'get'>>('GET', `/v1/gifts/${seg(code)}`),
    create: (body: BodyOf<'/v1/gifts', 'post'>) => json<Answer<'/v1/gifts', 'post'>>('POST', '/v1/gifts', { body }),
    accept: (code: string) => json<Answer<'/v1/gifts/{code}/accept', 'post'>>('POST', `/v1/gifts/${seg(code)}/accept`),
    claim: (code: string, ein: string) => json<Answer<'/v1/gifts/{code}/claim', 'post'>>('POST', `/v1/gifts/${seg(code)}/claim`, { body: { ein } }),
    deny: (code: string) => json<Answer<'/v1/gifts/{code}/deny', 'post'>>('POST', `/v1/gifts/${seg(code)}/deny`),
  };
  const contributions = {
    list: (query: QueryOf<'/v1/contributions', 'get'> = {}) => json<Answer<'/v1/contributions', 'get'>>('GET', '/v1/contributions', { query }),
    all: (perPage = 100) => every((page) => contributions.list({ page, per_page: perPage })),
    get: (id: number) => json<Answer<'/v1/contributions/{id}', 'get'>>('GET', `/v1/contributions/${seg(id)}`),
    declare: (body: BodyOf<'/v1/contributions', 'post'>) => json<Answer<'/v1/contributions', 'post'>>('POST', '/v1/contributions', { body }),
    cancel: (id: number) => json<Answer<'/v1/contributions/{id}', 'delete'>>('DELETE', `/v1/contributions/${seg(id)}`),
    /** A succeeded contribution's receipt as JSON; receiptPdf gives the printable PDF's bytes. */
    receipt: async (id: number) => json<Record<string, unknown>>('GET', `/v1/contributions/${seg(id)}/receipt`),
    receiptPdf: async (id: number) => new Uint8Array(await (await send('GET', `/v1/contributions/${seg(id)}/receipt`, { accept: 'application/pdf' })).arrayBuffer()),
  };
  const nonProfits = {
    search: (query: QueryOf<'/v1/non_profits', 'get'> = {}) => json<Answer<'/v1/non_profits', 'get'>>('GET', '/v1/non_profits', { query: query as Call['query'] }),
    all: (query: QueryOf<'/v1/non_profits', 'get'> = {}) => every((page) => nonProfits.search({ ...query, page })),
    get: (ein: string) => json<Answer<'/v1/non_profits/{ein}', 'get'>>('GET', `/v1/non_profits/${seg(ein)}`),
  };
  const users = {
    me: () => json<Answer<'/v1/users/me', 'get'>>('GET', '/v1/users/me'),
    balance: () => json<Answer<'/v1/users/me/balance', 'get'>>('GET', '/v1/users/me/balance'),
    get: (slugOrId: string | number) => json<Answer<'/v1/users/{user_id}', 'get'>>('GET', `/v1/users/${seg(slugOrId)}`),
    causes: (slugOrId: string | number) => json<Answer<'/v1/users/{user_id}/causes', 'get'>>('GET', `/v1/users/${seg(slugOrId)}/causes`),
  };
  const recurring = {
    list: (query: QueryOf<'/v1/scheduled_donations', 'get'> = {}) => json<Answer<'/v1/scheduled_donations', 'get'>>('GET', '/v1/scheduled_donations', { query }),
    get: (id: number) => json<Answer<'/v1/scheduled_donations/{id}', 'get'>>('GET', `/v1/scheduled_donations/${seg(id)}`),
    create: (body: BodyOf<'/v1/scheduled_donations', 'post'>) => json<Answer<'/v1/scheduled_donations', 'post'>>('POST', '/v1/scheduled_donations', { body }),
    cancel: (id: number) => json<unknown>('DELETE', `/v1/scheduled_donations/${seg(id)}`),
  };
  const webhooks = {
    list: (query: QueryOf<'/v1/webhook_endpoints', 'get'> = {}) => json<Answer<'/v1/webhook_endpoints', 'get'>>('GET', '/v1/webhook_endpoints', { query }),
    create: (body: BodyOf<'/v1/webhook_endpoints', 'post'>) => json<Answer<'/v1/webhook_endpoints', 'post'>>('POST', '/v1/webhook_endpoints', { body }),
    delete: (id: number) => json<unknown>('DELETE', `/v1/webhook_endpoints/${seg(id)}`),
  };
  const taxStatements = {
    /** A calendar year's statement as JSON; `pdf` gives the printable PDF's bytes. */
    get: (year: number) => json<Record<string, unknown>>('GET', `/v1/tax_statements/${seg(year)}`),
    pdf: async (year: number) => new Uint8Array(await (await send('GET', `/v1/tax_statements/${seg(year)}`, { accept: 'application/pdf' })).arrayBuffer()),
  };
  const events = {
    list: (query: QueryOf<'/v1/events', 'get'> = {}) => json<Answer<'/v1/events', 'get'>>('GET', '/v1/events', { query }),
    all: (perPage = 100) => every((page) => events.list({ page, per_page: perPage })),
    /** What a webhook delivery of the event carries: its `webhook-id` and its body, byte for byte. */
    delivery: (id: number) => json<Answer<'/v1/events/{id}/delivery', 'get'>>('GET', `/v1/events/${seg(id)}/delivery`),
  };
  return {
    me: users.me,
    balance: users.balance,
    users,
    donations,
    gifts,
    contributions,
    nonProfits,
    events,
    recurring,
    webhooks,
    taxStatements,
    /** Any route, for what the helpers do not cover: `request('GET', '/v1/api_keys')`. */
    request: <T = unknown>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, call: Call = {}) => json<T>(method, path, call),
  };
}

export type AlmonerClient = ReturnType<typeof createClient>;
