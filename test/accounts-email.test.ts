// One person, one account: an address written with full-width look-alikes or
// another case is the same address (NFKC, then lower case), on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, fingerprint } from './harness.ts';
import { WebClient } from './web-client.ts';
import { normalizeEmail } from '../src/modules/accounts/index.ts';

test('normalizeEmail: trimmed, NFKC, lower case; not an address is null', () => {
  assert.equal(normalizeEmail('  Ada@Example.org '), 'ada@example.org');
  assert.equal(normalizeEmail('ＡＤＡ＠ｅｘａｍｐｌｅ．ｏｒｇ'), 'ada@example.org');
  assert.equal(normalizeEmail('ａｄａ@example.org'), 'ada@example.org');
  assert.equal(normalizeEmail('not an address'), null);
});

describeEachEngine('one account per address', (env) => {
  test('signing up again with a full-width look-alike of an address is email_taken, and makes nothing', async () => {
    const first = new WebClient(env().app);
    assert.equal((await first.signUp('Ada', 'lookalike@example.org')).status, 303);
    const second = new WebClient(env().app);
    await second.get('/signup');
    const before = await fingerprint(env().deps);
    const again = await second.post('/signup', { name: 'Not Ada', email: 'ｌｏｏｋａｌｉｋｅ＠ｅｘａｍｐｌｅ．ｏｒｇ', password: 'correct horse battery' });
    assert.equal(again.status, 409);
    assert.match(again.body, /An account with this email exists/);
    assert.deepEqual(await fingerprint(env().deps), before);
    // And the look-alike signs in to the one account.
    assert.equal((await new WebClient(env().app).signIn('ＬＯＯＫＡＬＩＫＥ@example.org', 'correct horse battery')).status, 303);
  });
});
