// HTML built from tagged templates: every interpolated value is escaped
// unless it is already Html (the output of another template). Arrays are
// joined, null/undefined/false render nothing. There is no other way to put
// text into a page, so user strings are always shown as text.

export class Html {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString(): string {
    return this.text;
  }
}

type Value = Html | string | number | boolean | null | undefined | readonly Value[];

import { usdText } from '../shared/money.ts';
import { escapeHtml } from '../shared/escape.ts';
import { usdOfDollars, usdWholeDollars } from '../shared/money.ts';

export { escapeHtml };

function render(value: Value): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i] as Value) + (strings[i + 1] ?? '');
  return new Html(out);
}

/** Dollars for people: "$1,234.50". Display only: amounts stay numbers of the API's form. */
export function usd(dollars: number): string {
  return usdOfDollars(dollars);
}

/** Whole dollars, as the IRS reports an organisation's figures: "$3,218,404,018". */
export function usdWhole(dollars: number): string {
  return usdWholeDollars(dollars);
}

export function usdCents(cents: number): string {
  return usdText(cents);
}

/** "Nov 22, 2026" from an ISO timestamp or date. */
export function day(iso: string | null): string {
  if (iso === null) return '';
  return new Date(iso.length === 10 ? `${iso}T00:00:00Z` : iso).toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });
}
