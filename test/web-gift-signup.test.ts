// A gift's recipient without a fund: "open a fund" on the gift's page opens
// one and comes back to the gift, ready to accept it; a `next` that leaves the
// site goes to the dashboard instead.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, describeEachEngine, fund, makeUser } from './harness.ts';
import { WebClient, textOf } from './web-client.ts';

describeEachEngine('a gift recipient opens a fund', (env) => {
  test('signing up from the gift page comes back to the gift; a next elsewhere goes to the dashboard', async () => {
    const { app, deps } = env();
    const giver = await makeUser(deps, { name: 'Gia Giver' });
    await fund(deps, giver, 100_00);
    const gift = await call(app, 'POST', '/v1/gifts', { key: giver.key, body: { name: 'Rio', amount: 25 } });
    assert.equal(gift.status, 201);
    const path = `/gifts/${gift.body.code}`;
    const rio = new WebClient(app);
    const page = await rio.get(path);
    assert.match(page.body, new RegExp(`href="/signup\\?next=${encodeURIComponent(path).replace(/[%]/g, '%')}"`));
    const form = await rio.get(`/signup?next=${encodeURIComponent(path)}`);
    assert.match(form.body, new RegExp(`name="next" value="${path}"`));
    const signedUp = await rio.post('/signup', { name: 'Rio Recipient', email: 'rio@example.org', password: 'correct horse battery', next: path });
    assert.deepEqual([signedUp.status, signedUp.location], [303, path]);
    assert.match(textOf((await rio.get(path)).body), /Accept/);

    const other = new WebClient(app);
    await other.get('/signup?next=https://evil.example/');
    const away = await other.post('/signup', { name: 'Oz Other', email: 'oz@example.org', password: 'correct horse battery', next: 'https://evil.example/' });
    assert.deepEqual([away.status, away.location], [303, '/dashboard']);
    const plain = new WebClient(app);
    await plain.get('/signup');
    assert.equal((await plain.post('/signup', { name: 'Pat Plain', email: 'pat@example.org', password: 'correct horse battery' })).location, '/dashboard?done=welcome');
  });
});
