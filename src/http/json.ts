// Request bodies are parsed strictly: JSON.parse, then a scan that refuses
// duplicate keys (JSON.parse would keep the last one silently) and the keys
// that could poison prototypes.
import { AppError } from '../shared/errors.ts';

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** No body of this API nests deeper than a few levels; this many is refused before parsing. */
export const MAX_JSON_DEPTH = 32;

/** Fields that carry money: a number there that its double cannot hold exactly is amount_invalid. */
const MONEY_FIELDS = new Set(['amount', 'units', 'valuation']);

export function parseStrictJson(text: string): unknown {
  checkDepth(text);
  let value: unknown;
  let inexact: { key: string; source: string } | undefined;
  try {
    // Every number is judged by its text as sent (DECISIONS 5: nothing is rounded silently).
    value = JSON.parse(text, (key, parsed: unknown, context?: { source?: string }) => {
      if (typeof parsed === 'number' && inexact === undefined && context?.source !== undefined && !sameDecimal(context.source, String(parsed))) {
        inexact = { key, source: context.source };
      }
      return parsed;
    });
  } catch (error) {
    throw new AppError('bad_request', 'invalid_json', `the body is not valid JSON: ${(error as Error).message}`);
  }
  if (inexact !== undefined) {
    const money = MONEY_FIELDS.has(inexact.key);
    const field = /^\d+$/.test(inexact.key) || inexact.key === '' ? '(body)' : inexact.key;
    const message = `${inexact.source.slice(0, 40)} cannot be taken exactly; send at most 2 decimal places for amounts and 15 significant digits for other numbers`;
    throw new AppError('unprocessable', money ? 'amount_invalid' : 'validation_failed', `${field}: ${message}`, {
      errors: [{ field, code: money ? 'amount_invalid' : 'validation_failed', message }],
    });
  }
  checkKeys(text);
  // JSON can carry U+0000 (as \u0000); no field has a use for it and PostgreSQL cannot store it in text.
  if (text.includes('\\u0000')) {
    const field = nulAt(value, '');
    if (field !== undefined) {
      throw new AppError('unprocessable', 'validation_failed', `${field} must not contain the NUL character (U+0000)`, {
        errors: [{ field, code: 'validation_failed', message: 'must not contain the NUL character (U+0000)' }],
      });
    }
  }
  return value;
}

/** The path (as validation errors name fields) of the first string holding U+0000, if any. */
function nulAt(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? (path === '' ? '(body)' : path) : undefined;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = nulAt(item, path === '' ? String(i) : `${path}.${i}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const here = path === '' ? key : `${path}.${key}`;
      if (key.includes('\u0000')) return here;
      const found = nulAt(item, here);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** Walks well-formed JSON text (JSON.parse has accepted it) checking object keys. */
function checkKeys(text: string): void {
  const stack: Array<Set<string> | null> = []; // a Set per open object, null per open array
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const top = stack[stack.length - 1];
      if (expectKey && top instanceof Set) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (top.has(key)) throw new AppError('bad_request', 'invalid_json', `the body repeats the key "${key}"`);
        if (FORBIDDEN_KEYS.has(key)) throw new AppError('bad_request', 'invalid_json', `the key "${key}" is not allowed`);
        top.add(key);
        expectKey = false;
      }
      i = j;
    } else if (ch === '{') {
      stack.push(new Set());
      expectKey = true;
    } else if (ch === '[') {
      stack.push(null);
    } else if (ch === '}' || ch === ']') {
      stack.pop();
    } else if (ch === ',') {
      expectKey = stack[stack.length - 1] instanceof Set;
    }
  }
}

/** Refuses text nested deeper than MAX_JSON_DEPTH (counted outside strings), whether or not it is well formed. */
function checkDepth(text: string): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92)
        i++; // a backslash escapes the next character
      else if (ch === 34) inString = false;
    } else if (ch === 34) {
      inString = true;
    } else if (ch === 91 || ch === 123) {
      if (++depth > MAX_JSON_DEPTH) throw new AppError('bad_request', 'invalid_json', `the body nests deeper than ${MAX_JSON_DEPTH} levels`);
    } else if (ch === 93 || ch === 125) {
      depth--;
    }
  }
}

/** A JSON number's decimal value as (digits without leading or trailing zeros, exponent), for exact comparison. */
function decimalOf(text: string): { negative: boolean; digits: string; exponent: number } | undefined {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (match === null) return undefined;
  const whole = match[2] ?? '';
  const fraction = match[3] ?? '';
  let digits = `${whole}${fraction}`;
  let exponent = Number(match[4] ?? '0') - fraction.length;
  const leading = /^0*/.exec(digits)?.[0].length ?? 0;
  digits = digits.slice(leading);
  const trailing = /0*$/.exec(digits)?.[0].length ?? 0;
  digits = digits.slice(0, digits.length - trailing);
  exponent += trailing;
  if (digits === '') return { negative: false, digits: '0', exponent: 0 };
  return { negative: match[1] === '-', digits, exponent };
}

/** Whether two decimal texts name the same number exactly. */
function sameDecimal(a: string, b: string): boolean {
  const x = decimalOf(a);
  const y = decimalOf(b);
  return x !== undefined && y !== undefined && x.negative === y.negative && x.digits === y.digits && x.exponent === y.exponent;
}
