// Request bodies are parsed strictly: JSON.parse, then a scan that refuses
// duplicate keys (JSON.parse would keep the last one silently) and the keys
// that could poison prototypes.
import { AppError } from '../shared/errors.ts';

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export function parseStrictJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new AppError('bad_request', 'invalid_json', `the body is not valid JSON: ${(error as Error).message}`);
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
