import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FormReader } from './forms.ts';
import { EIN_RULE } from '../shared/ein.ts';

const reader = (fields: Record<string, string>) => new FormReader(new URLSearchParams(fields));

test('dollars: the API amount rule as a person types it, with a message for each way it is wrong', () => {
  const cases: Array<[string, number | null, string | undefined]> = [
    ['25', 2500, undefined],
    ['$1,250.50', 125_050, undefined],
    ['0.5', null, 'must be at least $1.00'],
    ['25.505', null, 'must be an amount in dollars, like 25 or 25.50'],
    ['1,25', null, 'must be an amount in dollars, like 25 or 25.50'],
    ['-5', null, 'must be an amount in dollars, like 25 or 25.50'],
    ['10000000.01', null, 'must be at most $10,000,000.00'],
    ['123456789', null, 'must be at most $10,000,000.00'],
  ];
  for (const [typed, cents, error] of cases) {
    const form = reader({ amount: typed });
    assert.equal(form.dollars('amount', { required: true, minCents: 100 }), cents, typed);
    assert.equal(form.errors.amount, error, typed);
    assert.equal(form.values.amount, typed, 'what was typed is kept for the form');
  }
  assert.equal(reader({ limit: '600' }).dollars('limit', { required: true, minCents: 1, maxCents: 50_000 }), null);
  const empty = reader({});
  assert.equal(empty.dollars('amount', { required: false, minCents: 1 }), null);
  assert.equal(empty.ok, true, 'an optional amount may be left empty');
  assert.equal(reader({}).amount('amount', 100), 0);
  const required = reader({});
  required.amount('amount', 100);
  assert.equal(required.errors.amount, 'is required');
});

test('ein: both forms of an EIN, stored as nine digits; anything else gets the API rule', () => {
  assert.equal(reader({ ein: '12-3456789' }).ein('ein', { required: true }), '123456789');
  assert.equal(reader({ ein: ' 123456789 ' }).ein('ein', { required: true }), '123456789');
  for (const typed of ['12345678', '12-34567890', 'ab-cdefghi', '1234-56789']) {
    const form = reader({ ein: typed });
    assert.equal(form.ein('ein', { required: true }), null, typed);
    assert.equal(form.errors.ein, EIN_RULE, typed);
  }
  const empty = reader({});
  assert.equal(empty.ein('ein', { required: true }), null);
  assert.equal(empty.errors.ein, 'is required');
});
