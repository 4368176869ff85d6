import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseStrictJson } from './json.ts';
import { AppError } from '../shared/errors.ts';

function codeOf(text: string): string | undefined {
  try {
    parseStrictJson(text);
    return undefined;
  } catch (error) {
    return error instanceof AppError ? error.code : 'other';
  }
}

test('strict JSON accepts ordinary bodies, including keys repeated at other levels', () => {
  assert.deepEqual(parseStrictJson('{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}'), { a: 1, b: { a: 2 }, c: [{ a: 3 }, { a: 4 }] });
  assert.deepEqual(parseStrictJson('{"s":"a \\" } , { \\"x"}'), { s: 'a " } , { "x' });
  assert.deepEqual(parseStrictJson('{"k":"v","k2":"v"}'), { k: 'v', k2: 'v' });
});

test('strict JSON refuses duplicates, prototype keys and broken text', () => {
  assert.equal(codeOf('{"a":1,"a":2}'), 'invalid_json');
  assert.equal(codeOf('{"x":{"a":1,"a":2}}'), 'invalid_json');
  assert.equal(codeOf('{"a\\u0062":1,"ab":2}'), 'invalid_json');
  assert.equal(codeOf('{"__proto__":{"admin":true}}'), 'invalid_json');
  assert.equal(codeOf('{"constructor":{"prototype":{}}}'), 'invalid_json');
  assert.equal(codeOf('{"a":1'), 'invalid_json');
  assert.equal(codeOf(''), 'invalid_json');
});
