// A small browser for tests over Fastify's inject: it keeps cookies as a
// browser does (Set-Cookie in, Cookie out, Max-Age=0 deletes), reads the
// CSRF token of the last page, and posts forms as a browser sends them.
import type { FastifyInstance } from 'fastify';

export interface Page {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  location: string | undefined;
}

export class WebClient {
  readonly cookies = new Map<string, string>();
  csrf: string | undefined;
  readonly #app: FastifyInstance;

  constructor(app: FastifyInstance) {
    this.#app = app;
  }

  #remember(headers: Page['headers']): void {
    const raw = headers['set-cookie'];
    for (const line of Array.isArray(raw) ? raw : raw === undefined ? [] : [String(raw)]) {
      const [pair] = line.split(';');
      const eq = (pair ?? '').indexOf('=');
      const name = (pair ?? '').slice(0, eq);
      const value = (pair ?? '').slice(eq + 1);
      if (/Max-Age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(method: 'GET' | 'POST', url: string, options: { body?: string; headers?: Record<string, string> } = {}): Promise<Page> {
    const response = await this.#app.inject({
      method,
      url,
      headers: { ...(this.cookies.size > 0 ? { cookie: this.cookieHeader() } : {}), ...options.headers },
      ...(options.body === undefined ? {} : { payload: options.body }),
    });
    this.#remember(response.headers);
    const body = response.body;
    const token = /name="_csrf" value="([^"]*)"/.exec(body)?.[1];
    if (token !== undefined) this.csrf = token;
    const location = response.headers.location;
    return { status: response.statusCode, headers: response.headers, body, location: typeof location === 'string' ? location : undefined };
  }

  get(url: string): Promise<Page> {
    return this.request('GET', url);
  }

  /** Posts a form with the page's CSRF token (unless `csrf` is given: false sends none). */
  post(url: string, fields: Record<string, string | string[]>, options: { csrf?: string | false; headers?: Record<string, string> } = {}): Promise<Page> {
    const form = new URLSearchParams();
    const token = options.csrf === undefined ? this.csrf : options.csrf;
    if (token !== false && token !== undefined) form.append('_csrf', token);
    for (const [name, value] of Object.entries(fields)) for (const v of Array.isArray(value) ? value : [value]) form.append(name, v);
    return this.request('POST', url, { body: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', ...options.headers } });
  }

  /** Opens the sign-up page and signs up; returns the response to the post. */
  async signUp(name: string, email: string, password = 'correct horse battery'): Promise<Page> {
    await this.get('/signup');
    return this.post('/signup', { name, email, password });
  }

  async signIn(email: string, password = 'correct horse battery'): Promise<Page> {
    await this.get('/signin');
    return this.post('/signin', { email, password });
  }
}

/** The text of a page without tags, spaces collapsed: what a person reads. */
export function textOf(body: string): string {
  return body
    .replace(/<script[\s\S]*?<\/script>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&(#39|quot|lt|gt|amp);/g, (_, entity: string) => ({ '#39': "'", quot: '"', lt: '<', gt: '>', amp: '&' })[entity] ?? '')
    .replace(/\s+/g, ' ')
    .trim();
}
