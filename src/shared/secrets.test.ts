import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { hashSecret } from './secrets.ts';

test('hashSecret is the hex SHA-256 that every stored key, token, session and link hash was written with', () => {
  // FIPS 180-2's example: stored hashes from before this helper must still match.
  assert.equal(hashSecret('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  const key = 'alm_live_0123456789abcdefghijABCDEFGHIJ0123456789';
  assert.equal(hashSecret(key), createHash('sha256').update(key).digest('hex'));
  assert.notEqual(hashSecret(key), hashSecret(`${key} `));
});
