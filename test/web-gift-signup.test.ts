// A gift's recipient without a fund: "open a fund" on the gift's page opens
// one and comes back to the gift, ready to accept it; a `next` that leaves the
// site goes to the dashboard instead.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, confirmInBrowser, describeEachEngine, fund, makeUser } from './harness.ts';
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

  test('gifts sent to an address appear in the fund opened with it, until answered', async () => {
    const { app, deps } = env();
    const giver = await makeUser(deps, { name: 'Hal Giver' });
    await fund(deps, giver, 100_00);
    const send = async (body: Record<string, unknown>) => (await call(app, 'POST', '/v1/gifts', { key: giver.key, body })).body as { code: string };
    const first = await send({ name: 'Sol', amount: 20, email: 'Sol.Recipient@Example.org', message: 'Happy birthday' });
    const second = await send({ name: 'Sol', amount: 30, email: 'sol.recipient@example.org' });
    const elsewhere = await send({ name: 'Tam', amount: 40, email: 'tam@example.org' });
    const sol = new WebClient(app);
    await sol.get('/signup');
    const opened = await sol.post('/signup', { name: 'Sol Recipient', email: 'sol.recipient@example.org', password: 'correct horse battery' });
    assert.equal(opened.location, '/dashboard?done=welcome');
    // Shown once the address is proven by the link mailed to it (rules §15).
    assert.doesNotMatch(textOf((await sol.get('/dashboard?done=welcome')).body), /Gifts for you/);
    await confirmInBrowser(deps, sol, 'sol.recipient@example.org');
    const dashboard = (await sol.get('/dashboard?done=welcome')).body;
    assert.match(
      textOf(dashboard),
      /Gifts for you Sent to your e-mail address: open one to give it to a non-profit or to take it into your fund\. \$20\.00 from Hal Giver "Happy birthday" \$30\.00 from Hal Giver/,
    );
    assert.ok(dashboard.includes(`href="/gifts/${first.code}"`) && dashboard.includes(`href="/gifts/${second.code}"`));
    assert.ok(!dashboard.includes(elsewhere.code), "another address's gift is not shown");
    // Answered, it leaves the list; the one left stays.
    await sol.get(`/gifts/${first.code}`);
    assert.equal((await sol.post(`/gifts/${first.code}/accept`, {})).status, 303);
    const after = (await sol.get('/dashboard')).body;
    assert.ok(!after.includes(`data-gift="${first.code}"`) && after.includes(`data-gift="${second.code}"`));
  });
});
