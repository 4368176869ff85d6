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

test('strict JSON judges each number by its text: the first one its double cannot hold names its field', () => {
  assert.deepEqual(parseStrictJson('{"amount":10.50,"n":1e2,"m":-0.25,"list":[1,2.5,3]}'), { amount: 10.5, n: 100, m: -0.25, list: [1, 2.5, 3] });
  const refused = (text: string) => {
    try {
      parseStrictJson(text);
    } catch (error) {
      assert.ok(error instanceof AppError);
      return { code: error.code, field: error.errors?.[0]?.field };
    }
    assert.fail(`${text} was accepted`);
  };
  assert.deepEqual(refused('{"amount":10.0000000000000001}'), { code: 'amount_invalid', field: 'amount' });
  assert.deepEqual(refused('{"note":"1.0000000000000001","x":{"units":0.1000000000000000055511151231257827}}'), { code: 'amount_invalid', field: 'units' });
  assert.deepEqual(refused('{"count":12345678901234567890}'), { code: 'validation_failed', field: 'count' });
  assert.deepEqual(refused('{"list":[1,9007199254740993]}'), { code: 'validation_failed', field: '(body)' });
  assert.deepEqual(refused('1.00000000000000001'), { code: 'validation_failed', field: '(body)' });
  // The first inexact number, in the order of the text; it is named before a repeated key.
  assert.deepEqual(refused('{"a":0.30000000000000001,"amount":1.0000000000000001,"a":1}'), { code: 'validation_failed', field: 'a' });
  assert.deepEqual(refused('{"a":1,"a":2,"amount":1.0000000000000001}'), { code: 'amount_invalid', field: 'amount' });
  // A number inside a string is text, not a number.
  assert.deepEqual(parseStrictJson('{"note":"costs 1.00000000000000001"}'), { note: 'costs 1.00000000000000001' });
});
