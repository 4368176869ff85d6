// Request bodies are parsed strictly: JSON.parse, then a scan that refuses
// duplicate keys (JSON.parse would keep the last one silently) and the keys
// that could poison prototypes.
import { AppError } from '../shared/errors.ts';
import { mayHoldRefusedText, textProblem } from '../shared/text.ts';

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** No body of this API nests deeper than a few levels; this many is refused before parsing. */
export const MAX_JSON_DEPTH = 32;

/** Fields that carry money: a number there that its double cannot hold exactly is amount_invalid. */
const MONEY_FIELDS = new Set(['amount', 'units', 'valuation']);

export function parseStrictJson(text: string): unknown {
  checkDepth(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new AppError('bad_request', 'invalid_json', `the body is not valid JSON: ${(error as Error).message}`);
  }
  // Every number is judged by its text as sent (rules §5: nothing is rounded silently), in
  // the same walk that checks the keys. (JSON.parse with a reviver that reads each number's
  // source took most of a small body's parse: 5-6 us against 0.5 us without.)
  const { inexact, refused } = scan(text);
  if (inexact !== undefined) {
    const money = MONEY_FIELDS.has(inexact.key);
    const field = /^\d*$/.test(inexact.key) ? '(body)' : inexact.key;
    const message = `${inexact.source.slice(0, 40)} cannot be taken exactly; send at most 2 decimal places for amounts and 15 significant digits for other numbers`;
    throw new AppError('unprocessable', money ? 'amount_invalid' : 'validation_failed', `${field}: ${message}`, {
      errors: [{ field, code: money ? 'amount_invalid' : 'validation_failed', message }],
    });
  }
  if (refused !== undefined) throw refused;
  // JSON can carry what no field has a use for and PostgreSQL cannot store: U+0000, other control
  // characters, lone surrogates (\uD800). The one rule is shared/text.ts; most bodies are not walked.
  if (mayHoldRefusedText(text)) {
    const found = refusedTextAt(value, '');
    if (found !== undefined) {
      throw new AppError('unprocessable', 'validation_failed', `${found.field} ${found.message}`, {
        errors: [{ field: found.field, code: 'validation_failed', message: found.message }],
      });
    }
  }
  return value;
}

/** The path (as validation errors name fields) of the first key or string textProblem refuses, with why. */
function refusedTextAt(value: unknown, path: string): { field: string; message: string } | undefined {
  if (typeof value === 'string') {
    const message = textProblem(value);
    return message === undefined ? undefined : { field: path === '' ? '(body)' : path, message };
  }
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = refusedTextAt(item, path === '' ? String(i) : `${path}.${i}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const here = path === '' ? key : `${path}.${key}`;
      const keyProblem = textProblem(key);
      if (keyProblem !== undefined) return { field: here, message: keyProblem };
      const found = refusedTextAt(item, here);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** An open object (its keys so far, and the key whose value is being read) or array (null). */
type Open = { keys: Set<string>; key: string } | null;

/**
 * Walks well-formed JSON text (JSON.parse has accepted it): the first number whose double is not
 * exactly its text (with the key it is the value of; '' in an array or alone), and the first key
 * an object repeats or that could poison prototypes.
 */
function scan(text: string): { inexact?: { key: string; source: string }; refused?: AppError } {
  let inexact: { key: string; source: string } | undefined;
  let refused: AppError | undefined;
  const stack: Open[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 34) {
      // a string: a key, or a value skipped
      let j = i + 1;
      while (text.charCodeAt(j) !== 34) j += text.charCodeAt(j) === 92 ? 2 : 1;
      const top = stack[stack.length - 1];
      if (expectKey && top !== undefined && top !== null) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (top.keys.has(key)) refused ??= new AppError('bad_request', 'invalid_json', `the body repeats the key "${key}"`);
        else if (FORBIDDEN_KEYS.has(key)) refused ??= new AppError('bad_request', 'invalid_json', `the key "${key}" is not allowed`);
        top.keys.add(key);
        top.key = key;
        expectKey = false;
      }
      i = j;
    } else if (ch === 45 || (ch >= 48 && ch <= 57)) {
      // a number: '-', digits, '.', 'e', 'E', '+'
      let j = i + 1;
      while (j < text.length && isNumberChar(text.charCodeAt(j))) j++;
      if (inexact === undefined) {
        const source = text.slice(i, j);
        const shown = String(Number(source));
        if (shown !== source && !sameDecimal(source, shown)) inexact = { key: stack[stack.length - 1]?.key ?? '', source };
      }
      i = j - 1;
    } else if (ch === 123) {
      stack.push({ keys: new Set(), key: '' });
      expectKey = true;
    } else if (ch === 91) {
      stack.push(null);
    } else if (ch === 125 || ch === 93) {
      stack.pop();
    } else if (ch === 44) {
      const top = stack[stack.length - 1];
      expectKey = top !== undefined && top !== null;
    }
  }
  return { inexact, refused };
}

function isNumberChar(ch: number): boolean {
  return (ch >= 48 && ch <= 57) || ch === 46 || ch === 101 || ch === 69 || ch === 43 || ch === 45;
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
