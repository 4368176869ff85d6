// A fundraiser's public page (docs/rules.md §22), on both engines: anyone sees its progress, what
// its matches give and its supporters; a signed-in donor gives from the page (the donation names
// the fundraiser and is matched), a refusal answers on the page and writes nothing; an ended one
// says so and takes nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accountOf, call, describeEachEngine, fingerprint, fund, makeNonProfit, makeUser } from './harness.ts';
import { WebClient, textOf } from './web-client.ts';

const EIN = '261544963';

describeEachEngine('a fundraiser on the web', (env) => {
  test('seen by anyone, given to from its page, matched; refusals on the page; ended', async () => {
    const { app, deps } = env();
    await makeNonProfit(deps, { ein: EIN, name: 'Vermont Foodbank' });
    const ana = await makeUser(deps, { name: 'Ana Organiser' });
    const max = await makeUser(deps, { name: 'Max Matcher' });
    await fund(deps, max, 500_00);
    const id = (
      await call(app, 'POST', '/v1/fundraisers', {
        key: ana.key,
        body: { ein: EIN, title: 'Bikes for the food run', story: 'We ride.\n\nThey eat.', goal: 1000, offline_amount: 50 },
      })
    ).body.id;
    await call(app, 'POST', `/v1/fundraisers/${id}/matches`, { key: max.key, body: { ratio: 1, cap: 100 } });

    const browser = new WebClient(app);
    const anonymous = await browser.get(`/fundraisers/${id}`);
    assert.equal(anonymous.status, 200);
    const text = textOf(anonymous.body);
    assert.match(anonymous.body, /<h1>Bikes for the food run<\/h1>/);
    assert.match(text, /For Vermont Foodbank · by Ana Organiser/);
    assert.match(text, /\$50\.00 of \$1,000\.00 \(5%, 0 donations, \$50\.00 of it raised offline\)/);
    assert.match(text, /\$100\.00 more is held to match donations still to come/);
    assert.match(text, /Sign in to donate/);
    assert.match(anonymous.body, /<p>They eat\.<\/p>/, 'the story in paragraphs');

    await browser.signUp('Web Giver', 'web-giver@example.org');
    await fund(deps, await accountOf(deps, 'web-giver@example.org'), 200_00);
    const page = await browser.get(`/fundraisers/${id}`);
    assert.match(page.body, new RegExp(`name="fundraiser_id" value="${id}"`));
    const form = { ein: EIN, from: 'fundraiser', fundraiser_id: String(id), visibility: 'public' };

    // A refusal answers on the page, with what was typed, and writes nothing.
    const before = await fingerprint(deps);
    const tooSmall = await browser.post('/dashboard/donations', { ...form, amount: '5' });
    assert.equal(tooSmall.status, 422);
    assert.match(tooSmall.body, /<h1>Bikes for the food run<\/h1>/);
    assert.match(textOf(tooSmall.body), /must be at least/);
    assert.deepEqual(await fingerprint(deps), before);

    const given = await browser.post('/dashboard/donations', { ...form, amount: '30' });
    assert.deepEqual([given.status, given.location], [303, `/fundraisers/${id}?done=donation_created#give`]);
    const made = await deps.db.selectFrom('donations').select(['id', 'amount_cents', 'fundraiser_id', 'match_id']).where('fundraiser_id', '=', id).orderBy('id').execute();
    assert.deepEqual(
      made.map((d) => [d.amount_cents, d.match_id === null ? 'giver' : 'match']),
      [
        [30_00, 'giver'],
        [30_00, 'match'],
      ],
    );
    const after = textOf((await browser.get(`/fundraisers/${id}?done=donation_created`)).body);
    assert.match(after, /\$110\.00 of \$1,000\.00 \(11%, 2 donations/);
    assert.match(after, /Matched so far: \$30\.00 \. \$70\.00 more is held/);
    assert.match(after, /Web Giver/);

    // Ended: the page says so, and a form sent anyway is refused on it.
    await call(app, 'POST', `/v1/fundraisers/${id}/end`, { key: ana.key });
    assert.match(textOf((await browser.get(`/fundraisers/${id}`)).body), /This fundraiser has ended\. You can still give to Vermont Foodbank/);
    const unchanged = await fingerprint(deps);
    const late = await browser.post('/dashboard/donations', { ...form, amount: '30' });
    assert.equal(late.status, 409);
    assert.match(textOf(late.body), /This fundraiser has ended\./, 'the page says why');
    assert.deepEqual(await fingerprint(deps), unchanged);
    assert.equal((await browser.get('/fundraisers/999999')).status, 404);
    assert.equal((await browser.get('/fundraisers/abc')).status, 404);
  });
});

describeEachEngine('opening a fundraiser on the web', (env) => {
  test("from an organisation's page: the form, the refusals on it with nothing written, the new page", async () => {
    const { app, deps } = env();
    await makeNonProfit(deps, { ein: EIN, name: 'Vermont Foodbank' });
    const browser = new WebClient(app);
    const signedOut = await browser.get(`/fundraisers/new?ein=${EIN}`);
    assert.equal(signedOut.status, 303, 'signed in first');
    await browser.signUp('Web Organiser', 'web-organiser@example.org');
    const path = String((await call(app, 'GET', `/v1/non_profits/${EIN}`, { key: (await makeUser(deps)).key })).body.public_path);
    const charity = await browser.get(path);
    assert.match(charity.body, new RegExp(`href="/fundraisers/new\\?ein=${EIN}"`), "the organisation's page offers it");
    const form = await browser.get(`/fundraisers/new?ein=${EIN}`);
    assert.equal(form.status, 200);
    assert.match(textOf(form.body), /asks others to give to one organisation, Vermont Foodbank/);
    assert.match(form.body, new RegExp(`<input type="hidden" name="ein" value="${EIN}">`));

    const good = { ein: EIN, title: 'Miles for meals', story: 'We run.\n\nThey eat.', goal: '750', offline_amount: '20' };
    for (const [label, body, status, says] of [
      ['no title', { ...good, title: ' ' }, 422, /Title.*required|required/],
      ['no goal', { ...good, goal: '' }, 422, /required/],
      ['a goal of cents beyond two places', { ...good, goal: '10.005' }, 422, /dollars/],
      ['a day that is no day', { ...good, ends_on: '2026-02-30' }, 422, /day/],
      ['a last day before the first', { ...good, starts_on: '2030-01-10', ends_on: '2030-01-05' }, 422, /ends_on|last day|after/],
      ['an organisation the directory does not know', { ...good, ein: '000000001' }, 404, /non-profit|organisation/i],
    ] as const) {
      const before = await fingerprint(deps);
      const refused = await browser.post('/fundraisers', body);
      assert.equal(refused.status, status, `${label}: ${textOf(refused.body).slice(0, 300)}`);
      assert.match(textOf(refused.body), says, label);
      assert.match(refused.body, /<h1>Open a fundraiser<\/h1>/, `${label}: answered on the form`);
      assert.deepEqual(await fingerprint(deps), before, `${label}: nothing written`);
    }

    const opened = await browser.post('/fundraisers', good);
    assert.equal(opened.status, 303);
    const id = Number(/^\/fundraisers\/(\d+)\?done=fundraiser_opened$/.exec(String(opened.location))?.[1]);
    const row = await deps.db.selectFrom('fundraisers').select(['title', 'goal_cents', 'offline_cents', 'user_id']).where('id', '=', id).executeTakeFirstOrThrow();
    assert.deepEqual([row.title, row.goal_cents, row.offline_cents, row.user_id], ['Miles for meals', 750_00, 20_00, (await accountOf(deps, 'web-organiser@example.org')).user_id]);
    const page = textOf((await browser.get(`/fundraisers/${id}?done=fundraiser_opened`)).body);
    assert.match(page, /Your fundraiser is open/);
    assert.match(page, /\$20\.00 of \$750\.00/);
  });
});
