// Charity pages (inject): a foreign organisation shows its country alone; the
// donate form on a charity's page names the organisation and gives to it;
// the site has a favicon.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accountOf, call, describeEachEngine, fund, makeNonProfit, makeUser } from './harness.ts';
import { WebClient, textOf } from './web-client.ts';

describeEachEngine('charity pages', (env) => {
  test("a foreign organisation's place is its country; the donate form names the organisation; a favicon", async () => {
    const { app, deps } = env();
    await makeNonProfit(deps, { ein: '010880225', name: 'Yenza Inc', city: 'South Africa', state: '' });
    await makeNonProfit(deps, { ein: '530196605', name: 'American National Red Cross', city: 'Washington', state: 'DC' });
    const browser = new WebClient(app);
    const foreign = await browser.get((await browser.get('/charities/010880225')).location ?? '');
    assert.equal(foreign.status, 200);
    assert.match(textOf(foreign.body), /Yenza Inc South Africa · /);
    assert.doesNotMatch(textOf(foreign.body), /South Africa, ·/);
    const results = textOf((await browser.get('/charities?query=yenza')).body);
    assert.match(results, /Yenza Inc South Africa · .* · EIN 010880225/);

    await browser.signUp('Page Donor', 'page-donor@example.org');
    await fund(deps, await accountOf(deps, 'page-donor@example.org'), 10_000);
    const path = (await browser.get('/charities/530196605')).location ?? '';
    const page = await browser.get(path);
    assert.match(textOf(page.body), /Donate to American National Red Cross American National Red Cross · EIN 53-0196605/);
    assert.doesNotMatch(page.body, /id="f-charity-ein"[^>]*value="530196605"/, 'no EIN where the name belongs');
    const given = await browser.post('/dashboard/donations', { ein: '530196605', amount: '20', visibility: 'public' });
    assert.equal(given.status, 303);

    const icon = await app.inject({ method: 'GET', url: '/favicon.ico' });
    assert.deepEqual([icon.statusCode, icon.headers['content-type']], [200, 'image/svg+xml']);
    assert.match(icon.body, /^<svg /);
    assert.match(page.body, /<link rel="icon" href="\/static\/favicon\.svg"/);
    assert.equal((await app.inject({ method: 'GET', url: '/static/favicon.svg' })).statusCode, 200);
  });
});

describeEachEngine('honest counts', (env) => {
  test('a search that stops counting at its cap says so (meta.count_capped), and the web shows "2,000+"; one that does not, does not', async () => {
    const { app, deps } = env();
    // 2,001 organisations whose names share a word: more than the search counts.
    const rows = Array.from({ length: 2_001 }, (_, i) => ({ ein: String(800_000_000 + i), name: `Anchorage Helpers ${i}`, city: 'Anchorage', state: 'AK' }));
    for (const row of rows) await makeNonProfit(deps, row);
    await makeNonProfit(deps, { ein: '799999999', name: 'Distinctive Zebra Trust', city: 'Juneau', state: 'AK' });
    const user = await makeUser(deps);
    const many = await call(app, 'GET', '/v1/non_profits?query=anchorage+helpers', { key: user.key });
    assert.deepEqual([many.body.meta.count, many.body.meta.count_capped], [2_000, true]);
    const one = await call(app, 'GET', '/v1/non_profits?query=distinctive+zebra', { key: user.key });
    assert.deepEqual([one.body.meta.count, 'count_capped' in one.body.meta], [1, false]);
    const page = textOf((await new WebClient(app).get('/charities?query=anchorage+helpers')).body);
    assert.match(page, /2,000\+ matching non-profits\./);
    assert.match(textOf((await new WebClient(app).get('/charities?query=distinctive+zebra')).body), /\b1 matching non-profits\./);
  });
});

describeEachEngine('browsing charities', (env) => {
  test('without words: the causes to browse; a cause or a state shows its largest organisations first, page by page; bad ones refused', async () => {
    const { app, deps } = env();
    await makeNonProfit(deps, { ein: '900000001', name: 'Small Vermont School', city: 'Burlington', state: 'VT', ntee_code: 'B20', income_amt: 1_000 });
    await makeNonProfit(deps, { ein: '900000002', name: 'Big Vermont College', city: 'Middlebury', state: 'VT', ntee_code: 'B40', income_amt: 90_000_000 });
    await makeNonProfit(deps, { ein: '900000003', name: 'Maine Food Pantry', city: 'Portland', state: 'ME', ntee_code: 'M20', cause_id: 11, income_amt: 50_000 });
    const browser = new WebClient(app);
    const home = await browser.get('/charities');
    assert.equal(home.status, 200);
    assert.match(home.body, /<a href="\/charities\?cause=2">Education<\/a>/);
    const education = textOf((await browser.get('/charities?cause=2')).body);
    assert.match(education, /The largest organisations: Education/);
    assert.ok(education.indexOf('Big Vermont College') < education.indexOf('Small Vermont School'), 'largest first');
    assert.doesNotMatch(education, /Maine Food Pantry/);
    const vermont = textOf((await browser.get('/charities?state=vt')).body);
    assert.match(vermont, /The largest organisations: VT/);
    assert.doesNotMatch(vermont, /Maine Food Pantry/);
    const both = textOf((await browser.get('/charities?cause=2&state=ME')).body);
    assert.match(both, /No non-profit matches\./);
    const words = textOf((await browser.get('/charities?query=vermont&state=VT')).body);
    assert.match(words, /Only VT\. Everywhere/);
    for (const bad of ['/charities?cause=999', '/charities?cause=x', '/charities?state=Vermont', '/charities?state=1A']) assert.equal((await browser.get(bad)).status, 400, bad);
  });
});
