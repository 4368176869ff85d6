import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bearerToken } from './bearer.ts';

test('bearerToken: the token of a Bearer header, in any case of the scheme; nothing else is one', () => {
  assert.equal(bearerToken('Bearer alm_admin_x'), 'alm_admin_x');
  assert.equal(bearerToken('  bearer   abc  '), 'abc');
  assert.equal(bearerToken('BEARER a b'), 'a b');
  for (const none of [undefined, '', 'Bearer', 'Bearer   ', 'Basic abc', 'alm_live_x', 'Bearerabc']) assert.equal(bearerToken(none), undefined, JSON.stringify(none));
});
