// Reading form posts: every field is checked here, at the edge, with a
// message a person can act on; the service functions then apply the rules.
import type { FastifyReply } from 'fastify';
import { AppError } from '../shared/errors.ts';
import { AMOUNT_MAX_CENTS, DOLLAR_TEXT, parseDollarText, usdText } from '../shared/money.ts';
import { EIN_RULE, normalizeEin } from '../shared/ein.ts';
import { textProblem } from '../shared/text.ts';
import type { CharityChoice, FormState } from './layout.ts';
import type { DirectorySearch } from '../modules/nonprofits/index.ts';

export class FormReader {
  readonly values: Record<string, string> = {};
  readonly errors: Record<string, string> = {};
  readonly #form: URLSearchParams;

  constructor(form: URLSearchParams | undefined) {
    this.#form = form ?? new URLSearchParams();
  }

  /** A trimmed text field; '' when absent. */
  text(name: string, options: { required?: boolean; max: number }): string {
    const value = (this.#form.get(name) ?? '').trim();
    this.values[name] = value;
    if (options.required === true && value === '') this.errors[name] = 'is required';
    else if ([...value].length > options.max) this.errors[name] = `must be at most ${options.max} characters`;
    else {
      const problem = textProblem(value);
      if (problem !== undefined) this.errors[name] = problem;
    }
    return value;
  }

  /** Dollars as typed, to cents, at least `minCents` (the API's amount rule: shared/money.ts). */
  amount(name: string, minCents: number): number {
    return this.dollars(name, { required: true, minCents }) ?? 0;
  }

  /**
   * Dollars as typed ("25", "25.50", "$1,250"), to cents from `minCents` to `maxCents` (at most the
   * API's maximum amount); null when left empty and not required, or when wrong (an error is set).
   */
  dollars(name: string, { required, minCents, maxCents = AMOUNT_MAX_CENTS }: { required: boolean; minCents: number; maxCents?: number }): number | null {
    const value = (this.#form.get(name) ?? '').trim();
    this.values[name] = value;
    if (value === '') {
      if (required) this.errors[name] = 'is required';
      return null;
    }
    const cents = parseDollarText(value);
    if (cents === null && DOLLAR_TEXT.test(value)) this.errors[name] = `must be at most ${usdText(maxCents)}`;
    else if (cents === null) this.errors[name] = 'must be an amount in dollars, like 25 or 25.50';
    else if (cents < minCents) this.errors[name] = `must be at least ${usdText(minCents)}`;
    else if (cents > maxCents) this.errors[name] = `must be at most ${usdText(maxCents)}`;
    else return cents;
    return null;
  }

  /** An EIN as typed (12-3456789 or nine digits), as stored; null when empty or malformed (an error is set then, with the API's rule). */
  ein(name: string, { required }: { required: boolean }): string | null {
    const value = this.text(name, { required, max: 20 });
    if (value === '') return null;
    const ein = normalizeEin(value);
    if (ein === null) this.errors[name] = EIN_RULE;
    return ein;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.#form.get(name) ?? fallback;
    this.values[name] = value;
    if (!(allowed as readonly string[]).includes(value)) {
      this.errors[name] = `must be one of ${allowed.join(', ')}`;
      return fallback;
    }
    return value as T;
  }

  checked(name: string): boolean {
    return this.#form.has(name);
  }

  integers(name: string): number[] {
    const out: number[] = [];
    for (const raw of this.#form.getAll(name)) {
      if (/^\d{1,6}$/.test(raw)) out.push(Number(raw));
      else this.errors[name] = 'has a value that is not a number';
    }
    return out;
  }

  fail(name: string, message: string): void {
    this.errors[name] = message;
  }

  get ok(): boolean {
    return Object.keys(this.errors).length === 0;
  }

  state(message?: string): FormState {
    return { values: this.values, errors: this.errors, ...(message === undefined ? {} : { message }) };
  }
}

/** A page number from a query (?page=N): a whole number from 1, anything else the first page. */
export function pageParam(raw: unknown): number {
  return typeof raw === 'string' && /^\d{1,6}$/.test(raw) && Number(raw) >= 1 ? Number(raw) : 1;
}

/** Runs a use case; a domain error comes back as a value for the form to show, anything else is thrown on. */
export async function attempt<T>(work: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: AppError }> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    if (error instanceof AppError && error.kind !== 'internal' && error.kind !== 'unavailable') return { ok: false, error };
    throw error;
  }
}

/** A service's error as form state: its field errors beside their fields, its detail on top. */
export function stateOf(error: AppError, values: Record<string, string>): FormState {
  const errors: Record<string, string> = {};
  for (const e of error.errors ?? []) errors[e.field] = e.message;
  const message = error.message.charAt(0).toUpperCase() + error.message.slice(1);
  return { values, errors, message: `${message}.`, code: error.code };
}

/** Sends the headers a refusal carries (`Retry-After`, a challenge) with the page that shows it, as the API sends them. */
export function problemHeaders(reply: FastifyReply, error: AppError): void {
  for (const [name, value] of Object.entries(error.headers ?? {})) reply.header(name, value);
}

/** Where to go after signing in: a path on this site, never another site. */
const HOME = '/dashboard';
const OWN_ORIGIN = 'https://almoner.invalid';

/**
 * Where to go after signing in: a path of this site, or the dashboard.
 * Judged as a browser would read it: any control, space or invisible
 * character is refused outright (browsers drop tabs and newlines, turning
 * `/\t/evil.com` into `//evil.com`), and so is anything that the URL parser
 * resolves to another origin. What is returned is the parser's own ASCII
 * serialisation, safe in a Location header.
 */
export function safeNext(next: string | null | undefined): string {
  if (typeof next !== 'string' || next.length === 0 || next.length > 500 || next[0] !== '/') return HOME;
  if (/[\p{C}\p{Z}\s\\]/u.test(next)) return HOME;
  let url: URL;
  try {
    url = new URL(next, `${OWN_ORIGIN}/`);
  } catch {
    return HOME;
  }
  if (url.origin !== OWN_ORIGIN) return HOME;
  const path = `${url.pathname}${url.search}${url.hash}`;
  return path.startsWith('//') ? HOME : path;
}

/**
 * What a typed charity names, for forms that take a name or an EIN (the
 * search-as-you-type picks an EIN; without JavaScript a name arrives): the
 * EIN, or the best matches of the text (none for no text).
 */
export async function whichCharity(directory: DirectorySearch, text: string): Promise<{ ein: string } | { matches: CharityChoice[] }> {
  const ein = normalizeEin(text);
  if (ein !== null) return { ein };
  if (text === '') return { matches: [] };
  return { matches: (await directory.search({ query: text }, { page: 1, per_page: 5 })).items };
}
