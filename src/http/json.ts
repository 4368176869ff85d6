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
  return value;
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
