import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { seal, unseal } from './sealed.ts';

test('seal: opens with its key only, never the same text twice, a changed text does not open', () => {
  const key = randomBytes(32);
  const a = seal(key, '000123456789');
  assert.notEqual(a, seal(key, '000123456789'), 'a fresh nonce each time');
  assert.equal(unseal(key, a), '000123456789');
  assert.ok(!a.includes('123456789'), 'the number is not in the sealed text');
  assert.throws(() => unseal(randomBytes(32), a));
  const parts = a.split('.');
  const body = Buffer.from(parts[3] as string, 'base64url');
  body[0] = (body[0] as number) ^ 1;
  assert.throws(() => unseal(key, [parts[0], parts[1], parts[2], body.toString('base64url')].join('.')));
  assert.throws(() => unseal(key, 'plain text'));
});
