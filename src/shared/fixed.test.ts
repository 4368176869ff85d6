import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decimalText, divHalfEven, parse8, unitsFor, valueCents } from './fixed.ts';

test('divHalfEven rounds half to even, both signs, and refuses a divisor that is not positive', () => {
  assert.deepEqual(
    [5n, 15n, 25n, 26n, 24n, -5n, -15n, -26n].map((n) => divHalfEven(n, 10n)),
    [0n, 2n, 2n, 3n, 2n, 0n, -2n, -3n],
  );
  assert.equal(divHalfEven(7n, 3n), 2n);
  assert.throws(() => divHalfEven(1n, 0n), RangeError);
});

test('decimal text and parsing keep 8 places exactly', () => {
  assert.equal(decimalText(1_250_000_000n), '12.50000000');
  assert.equal(decimalText(1n), '0.00000001');
  assert.equal(decimalText(-150n, 2), '-1.50');
  assert.equal(parse8('12.5'), 1_250_000_000n);
  assert.equal(parse8('0.000000001'), null);
  assert.equal(parse8('-1'), null);
});

test('value and units: one half-even rounding each', () => {
  // 3 units at $10.005 = $30.015 -> $30.02 (half to even: 3001.5 cents -> 3002)
  assert.equal(valueCents(300_000_000n, 1_000_500_000n), 3002n);
  // 2.5 units at $0.01 = 2.5 cents -> 2
  assert.equal(valueCents(250_000_000n, 1_000_000n), 2n);
  // $100 at $3.00 = 33.333333333 units -> 33.33333333
  assert.equal(decimalText(unitsFor(10_000n, 300_000_000n)), '33.33333333');
});
