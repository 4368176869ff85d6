// Charity pages (inject): a foreign organisation shows its country alone; the
// donate form on a charity's page names the organisation and gives to it;
// the site has a favicon.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accountOf, call, describeEachEngine, fingerprint, fund, makeNonProfit, makeUser, makeZipCentres } from './harness.ts';
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

    // The page's form answers on the page: a refusal keeps the charity and what was typed, no raw EIN field.
    const unchanged = await fingerprint(deps);
    const tooSmall = await browser.post('/dashboard/donations', { ein: '530196605', from: 'charity', amount: '5', visibility: 'public' });
    assert.equal(tooSmall.status, 422);
    assert.match(tooSmall.body, /<h1>American National Red Cross<\/h1>/);
    assert.match(textOf(tooSmall.body), /Donate to American National Red Cross .*must be at least/);
    assert.match(tooSmall.body, /name="amount"[^>]*value="5"/);
    assert.doesNotMatch(tooSmall.body, /id="f-charity-ein"/, 'the donor is not handed a raw EIN to fix');
    // More than is available: asked on the page, then given when told to wait.
    const large = await browser.post('/dashboard/donations', { ein: '530196605', from: 'charity', amount: '14400', visibility: 'public' });
    assert.equal(large.status, 200);
    assert.match(large.body, /<h1>American National Red Cross<\/h1>/);
    assert.match(textOf(large.body), /Your fund has \$80\.00 available to give; this donation is \$14,400\.00\./);
    assert.deepEqual(await fingerprint(deps), unchanged, 'nothing recorded by a refusal or a question');
    const waited = await browser.post('/dashboard/donations', { ein: '530196605', from: 'charity', amount: '14400', visibility: 'public', wait: 'yes' });
    assert.deepEqual([waited.status, waited.location], [303, '/dashboard?done=donation_waiting#donations']);

    const icon = await app.inject({ method: 'GET', url: '/favicon.ico' });
    assert.deepEqual([icon.statusCode, icon.headers['content-type']], [200, 'image/svg+xml']);
    assert.match(icon.body, /^<svg /);
    assert.match(page.body, /<link rel="icon" href="\/static\/favicon\.svg"/);
    assert.equal((await app.inject({ method: 'GET', url: '/static/favicon.svg' })).statusCode, 200);
  });
});

describeEachEngine('a search that finds nothing', (env) => {
  test('says how many organisations the directory holds and how the national one is loaded', async () => {
    const { app, deps } = env();
    await makeNonProfit(deps, { ein: '530196605', name: 'American National Red Cross', city: 'Washington', state: 'DC' });
    const { directorySize } = await import('../src/modules/nonprofits/index.ts');
    const size = await directorySize(deps);
    const browser = new WebClient(app);
    const none = textOf((await browser.get('/charities?query=zzyzx+quixotic')).body);
    assert.match(none, /No non-profit matches\./);
    assert.ok(none.includes(`This directory holds ${size.toLocaleString('en-US')} organisations`), none);
    assert.match(none, /almoner nonprofits download/);
    const found = textOf((await browser.get('/charities?query=red+cross')).body);
    assert.doesNotMatch(found, /This directory holds/, 'not when something matches');
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
    assert.match(textOf((await new WebClient(app).get('/charities?query=distinctive+zebra')).body), /\b1 matching non-profit\./);
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

describeEachEngine("a charity's page: what the IRS says, others nearby and like it", (env) => {
  test('the address, kind, deductibility, status, ruling year, activity, group and size in words; nearby and similar eligible organisations', async () => {
    const { app, deps } = env();
    const details = { street: '431 18TH ST NW', city: 'Washington', state: 'DC', zip: '20006-5310', latitude: 38.89, longitude: -77.04, ntee_code: 'M20', cause_id: 11 };
    await makeNonProfit(deps, {
      ein: '530196605',
      name: 'American National Red Cross',
      ...details,
      ruling: '193803',
      subsection: '03',
      foundation: '15',
      affiliation: '1',
      deductibility: '1',
      status: '01',
      revenue_amt: 3_218_404_018,
      income_amt: 3_900_000_000,
      asset_amt: 4_300_000_000,
      tax_period: '202406',
    });
    await makeNonProfit(deps, { ein: '530000001', name: 'Capital Relief Fund', ...details, deductibility: '1', status: '01', income_amt: 5_000 });
    await makeNonProfit(deps, { ein: '530000002', name: 'Closed Relief Trust', ...details, eligible: 0, deductibility: '2', income_amt: 9_000 });
    await makeNonProfit(deps, { ein: '530000003', name: 'Far Relief Society', ...details, state: 'CA', city: 'Fresno', latitude: 36.7, longitude: -119.8, income_amt: 7_000 });
    const browser = new WebClient(app);
    const page = await browser.get((await browser.get('/charities/530196605')).location ?? '');
    assert.equal(page.status, 200);
    const text = textOf(page.body);
    assert.match(text, /Address 431 18th St NW Washington, DC 20006-5310/);
    assert.match(text, /Kind Public charity \(publicly supported\)/);
    assert.match(text, /Donations Contributions are tax-deductible/);
    assert.match(text, /Status Exempt \(unconditional exemption\)/);
    assert.match(text, /Recognised since 1938/);
    assert.match(text, /Activity Disaster Preparedness & Relief Services \(M20\)/);
    assert.match(text, /Group The central organisation of a national, regional or local group/);
    assert.match(text, /Size Revenue \$3,218,404,018, assets \$4,300,000,000 \(its 2024 return\)/);
    assert.match(text, /Nearby Capital Relief Fund/, 'an eligible neighbour');
    assert.match(text, /The largest of Disaster Relief & Public Safety in DC Capital Relief Fund/);
    assert.doesNotMatch(text, /Closed Relief Trust/, 'others are ones a donor can give to');
    assert.doesNotMatch(text, /Far Relief Society/, 'another state is neither near nor in DC');
    assert.doesNotMatch(text, /cannot receive donations/);
  });

  test('an organisation that cannot receive donations says why, and offers no form; a foreign one shows its country as its last address line', async () => {
    const { app, deps } = env();
    await makeNonProfit(deps, { ein: '530000004', name: 'Not Deductible League', eligible: 0, subsection: '04', deductibility: '2', status: '01' });
    await makeNonProfit(deps, { ein: '530000005', name: 'Split Interest Trust', eligible: 0, organization: '2', deductibility: '1', status: '12' });
    await makeNonProfit(deps, { ein: '530000006', name: 'Removed Charity', deductibility: '1', status: '01', removed_at: '2026-01-01T00:00:00Z' } as never);
    await makeNonProfit(deps, {
      ein: '010880225',
      name: 'Yenza Inc',
      street: 'THREE ANCHOR BAY WESTERN CAPE 8005',
      city: 'South Africa',
      state: '',
      zip: '00000-0000',
      deductibility: '1',
      status: '01',
    });
    const browser = new WebClient(app);
    await browser.signUp('Careful Donor', 'careful-donor@example.org');
    const pageOf = async (ein: string) => browser.get((await browser.get(`/charities/${ein}`)).location ?? '');
    const league = await pageOf('530000004');
    assert.match(textOf(league.body), /This organisation cannot receive donations\. The IRS lists contributions to it as not tax-deductible\./);
    assert.match(textOf(league.body), /Kind Exempt organisation, section 501\(c\)\(4\): not a charity/);
    assert.doesNotMatch(league.body, /action="\/dashboard\/donations"/);
    assert.match(textOf((await pageOf('530000005')).body), /cannot receive donations\. It is a charitable trust, not an organisation the IRS recognises as exempt\./);
    assert.match(textOf((await pageOf('530000006')).body), /cannot receive donations\. The IRS no longer lists it/);
    const foreign = textOf((await pageOf('010880225')).body);
    assert.match(foreign, /Address Three Anchor Bay Western Cape 8005 South Africa Kind/);
    assert.doesNotMatch(foreign, /00000/);
  });
});

describeEachEngine('near me by ZIP code', (env) => {
  test('/charities?zip= lists the largest organisations near its centre, page by page; a malformed or unknown ZIP is refused with a clear message', async () => {
    const { app, deps } = env();
    await makeZipCentres(deps, [
      ['05401', 44.48, -73.21],
      ['04101', 43.66, -70.26],
    ]);
    for (let i = 0; i < 25; i += 1)
      await makeNonProfit(deps, { ein: String(910_000_000 + i), name: `Lakeside Helpers ${i}`, latitude: 44.47, longitude: -73.2, income_amt: 1_000 + i });
    await makeNonProfit(deps, { ein: '910000100', name: 'Portland Harbor Trust', city: 'Portland', state: 'ME', latitude: 43.66, longitude: -70.25, income_amt: 99_000 });
    const browser = new WebClient(app);
    assert.match((await browser.get('/charities')).body, /<input id="browse-zip" name="zip"/);
    const first = textOf((await browser.get('/charities?zip=05401')).body);
    assert.match(first, /The largest organisations: near 05401/);
    assert.match(first, /25 matching non-profits\./);
    assert.ok(first.indexOf('Lakeside Helpers 24') < first.indexOf('Lakeside Helpers 23'), 'largest first');
    assert.doesNotMatch(first, /Portland Harbor Trust/);
    const second = await browser.get('/charities?zip=05401&page=2');
    assert.match(textOf(second.body), /Lakeside Helpers 0/);
    assert.match(textOf((await browser.get('/charities?zip=04101')).body), /Portland Harbor Trust/);
    for (const [zip, message] of [
      ['5401', /a ZIP code is five digits, like 05401/i],
      ['abcde', /a ZIP code is five digits/i],
      ['99999', /the directory does not know ZIP code 99999/i],
    ] as const) {
      const refused = await browser.get(`/charities?zip=${zip}`);
      assert.equal(refused.status, 400, zip);
      assert.match(textOf(refused.body), message, zip);
    }
  });
});
