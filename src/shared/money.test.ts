import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  allocate,
  wholePercent,
  centsOfDollars,
  differsByMoreThan,
  parseDollars,
  parseDollarText,
  centsToDollars,
  dollarsText,
  usdOfDollars,
  usdText,
  usdWholeDollars,
  valueInCents,
  valueOfNumbersInCents,
  wholeDollarsIn,
  AMOUNT_MAX_CENTS,
} from './money.ts';

test('parseDollars accepts whole and 2-decimal amounts exactly', () => {
  assert.deepEqual(parseDollars(10), { ok: true, cents: 1000 });
  assert.deepEqual(parseDollars(10.1), { ok: true, cents: 1010 });
  assert.deepEqual(parseDollars(0.29), { ok: true, cents: 29 });
  assert.deepEqual(parseDollars(19.99), { ok: true, cents: 1999 });
  assert.deepEqual(parseDollars(10_000_000), { ok: true, cents: AMOUNT_MAX_CENTS });
});

test('parseDollars rejects what it cannot represent exactly', () => {
  for (const bad of [10.005, Number.NaN, Infinity, -1, 10_000_000.01, 1e21, 1e-7, '10', null, true, {}]) {
    assert.equal(parseDollars(bad).ok, false, `expected ${String(bad)} to be rejected`);
  }
});

test('cents round-trip through dollars for every amount in range', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: AMOUNT_MAX_CENTS }), (cents) => {
      const parsed = parseDollars(centsToDollars(cents));
      assert.deepEqual(parsed, { ok: true, cents });
    }),
    { numRuns: 5000 },
  );
});

test('valueInCents multiplies exactly and rounds half-even once', () => {
  assert.equal(valueInCents('10', '150.25'), 150250);
  assert.equal(valueInCents('0.5', '0.01'), 0); // 0.005 -> 0 (even)
  assert.equal(valueInCents('1.5', '0.01'), 2); // 0.015 -> 0.02 (even)
  assert.equal(valueInCents('2.5', '0.01'), 2); // 0.025 -> 0.02 (even)
  assert.equal(valueInCents('0.12345678', '43210.98765432'), 533469); // 5334.68939642...

  assert.throws(() => valueInCents('1.123456789', '1'));
});

test('dollars typed into a form become exact cents; anything else is refused', () => {
  const cases: Array<[string, number | null]> = [
    ['25', 2500],
    ['25.5', 2550],
    ['25.05', 2505],
    [' $1,250.00 ', 125000],
    ['$10', 1000],
    ['0.01', 1],
    ['10000000', 1_000_000_000],
    ['10000000.01', null],
    ['-5', null],
    ['1.005', null],
    ['1,25', null],
    ['12,34,567', null],
    ['', null],
    ['abc', null],
    ['1e3', null],
    ['NaN', null],
    ['Infinity', null],
    ['99999999999', null],
  ];
  for (const [text, cents] of cases) assert.equal(parseDollarText(text), cents, JSON.stringify(text));
});

test('usdText writes cents as dollars exactly, and parseDollarText reads it back', () => {
  assert.equal(usdText(0), '$0.00');
  assert.equal(usdText(5), '$0.05');
  assert.equal(usdText(-5), '-$0.05');
  assert.equal(usdText(123_456_789), '$1,234,567.89');
  assert.equal(usdText(Number.MAX_SAFE_INTEGER), '$90,071,992,547,409.91');
  fc.assert(fc.property(fc.integer({ min: 1, max: AMOUNT_MAX_CENTS }), (cents) => parseDollarText(usdText(cents)) === cents));
});

test('dollarsText and valueOfNumbersInCents: exact text and value from integers and 8-place numbers', () => {
  assert.equal(dollarsText(1250), '12.50');
  assert.equal(dollarsText(-5), '-0.05');
  assert.equal(dollarsText(0), '0.00');
  // 0.1 x 3 is 0.30000000000000004 in floating point; the value is exactly 30 cents.
  assert.equal(valueOfNumbersInCents(0.1, 3), 30);
  assert.equal(valueOfNumbersInCents(12, 187.255), 224706);
  assert.equal(valueOfNumbersInCents(0.00000001, 1), 0);
});

test('allocate splits cents by weights exactly: remainders to the largest, zero weights nothing, one weight all', () => {
  assert.deepEqual(allocate(100, [1, 1, 1]), [34, 33, 33]);
  assert.deepEqual(allocate(1001, [50, 30, 20]), [501, 300, 200]);
  assert.deepEqual(allocate(7, [0, 1, 0, 1]), [0, 4, 0, 3]);
  assert.deepEqual(allocate(999, [1]), [999]);
  assert.deepEqual(allocate(0, [3, 2]), [0, 0]);
  for (const weights of [[], [0, 0], [1, -1], [0.5, 0.5]]) assert.throws(() => allocate(10, weights), /allocate/);
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 1e9 }), fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 1, maxLength: 12 }), (cents, weights) => {
      fc.pre(weights.some((w) => w > 0));
      const parts = allocate(cents, weights);
      assert.equal(
        parts.reduce((a, b) => a + b, 0),
        cents,
      );
      parts.forEach((p, i) => assert.ok(weights[i] === 0 ? p === 0 : Math.abs(p - (cents * (weights[i] as number)) / weights.reduce((a, b) => a + b, 0)) < 1));
    }),
  );
});

test('dollars of the API form to cents and text, by their decimal text', () => {
  assert.deepEqual([centsOfDollars(0.29), centsOfDollars(1.1), centsOfDollars(12), centsOfDollars(-0.05), centsOfDollars(1234567.89)], [29, 110, 1200, -5, 123456789]);
  assert.deepEqual([usdOfDollars(1234.5), usdOfDollars(0.29), usdOfDollars(-0.05)], ['$1,234.50', '$0.29', '-$0.05']);
  assert.deepEqual([usdWholeDollars(3218404018), usdWholeDollars(0.4), usdWholeDollars(-1500.5)], ['$3,218,404,018', '$0', '-$1,501']);
  assert.deepEqual([differsByMoreThan(111, 100, 10), differsByMoreThan(110, 100, 10), differsByMoreThan(89, 100, 10)], [true, false, true]);
});

test('wholePercent: rounded down, at most 100, 0 of nothing', () => {
  assert.deepEqual([wholePercent(1, 3), wholePercent(2, 3), wholePercent(5, 5), wholePercent(7, 5), wholePercent(3, 0)], [33, 66, 100, 100, 0]);
});

test('wholeDollarsIn: the whole dollars of an amount, rounded down, never negative', () => {
  assert.deepEqual([0, 99, 100, 123_456, 123_499, -500].map(wholeDollarsIn), [0, 0, 1, 1234, 1234, 0]);
  assert.throws(() => wholeDollarsIn(0.5), /cents/);
});
