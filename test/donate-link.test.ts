// Donate links (docs/rules.md §23), on both engines: an app's link opens a prefilled donation
// after sign-in, the donor confirms, and is sent back to the app's own address with the
// donation's id; the donation carries the link's id, metadata (marked as the browser's) and
// choices. A return address on another origin, or without its app, is refused and nothing is
// written; a monthly link makes a recurring donation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accountOf, describeEachEngine, fingerprint, fund, makeNonProfit, makeUser } from './harness.ts';
import { WebClient, textOf } from './web-client.ts';
import { registerApp } from '../src/modules/apps/index.ts';

const EIN = '261544963';

/** The hidden fields of a page's form, as a browser would send them. */
function hiddenFields(body: string): Record<string, string> {
  const fields: Record<string, string> = {};
  const unescape = (v: string) => v.replace(/&(#39|quot|lt|gt|amp);/g, (_, e: string) => ({ '#39': "'", quot: '"', lt: '<', gt: '>', amp: '&' })[e] ?? '');
  for (const m of body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) if (m[1] !== '_csrf') fields[m[1] as string] = unescape(m[2] as string);
  return fields;
}

describeEachEngine('donate links', (env) => {
  test("an app's link: signed in, confirmed, back to the app with the donation's id; refused return addresses", async () => {
    const { app, deps } = env();
    await makeNonProfit(deps, { ein: EIN, name: 'Vermont Foodbank' });
    const developer = await makeUser(deps);
    const { app: wheel } = await registerApp(deps, developer.user_id, { name: 'Giving Wheel', redirect_uris: ['https://wheel.example.org/callback'] });
    const link = (params: Record<string, string>) => `/donate/${EIN}?${new URLSearchParams(params).toString()}`;
    const good = link({
      amount: '25',
      designation: 'Food run',
      share: 'anonymous',
      external_id: 'wheel-7',
      metadata: JSON.stringify({ slot: '4' }),
      app: wheel.client_id,
      success_url: 'https://wheel.example.org/thanks',
      exit_url: 'https://wheel.example.org/',
    });

    const browser = new WebClient(app);
    const signedOut = await browser.get(good);
    assert.equal(signedOut.status, 303);
    assert.equal(signedOut.location, `/signin?next=${encodeURIComponent(good)}`, 'signs in first, then comes back');
    await browser.signUp('Link Donor', 'link-donor@example.org');
    await fund(deps, await accountOf(deps, 'link-donor@example.org'), 500_00);

    const page = await browser.get(good);
    assert.equal(page.status, 200);
    assert.match(page.body, /<h1>Give to Vermont Foodbank<\/h1>/);
    assert.match(textOf(page.body), /From a link of Giving Wheel\. Nothing is given until you confirm\./);
    assert.match(page.body, /name="amount"[^>]*value="25"/);
    assert.match(page.body, /<a href="https:\/\/wheel\.example\.org\/">Cancel<\/a>/);
    assert.match(String(page.headers['content-security-policy']), /form-action 'self' https:\/\/wheel\.example\.org;/, 'its form may lead back to the app, and nowhere else');
    const fields = hiddenFields(page.body);
    assert.deepEqual([fields.from, fields.external_id, fields.metadata, fields.success_url], ['link', 'wheel-7', '{"slot":"4"}', 'https://wheel.example.org/thanks']);

    const given = await browser.post('/dashboard/donations', { ...fields, amount: '25', visibility: 'public' });
    assert.equal(given.status, 303, textOf(given.body).slice(0, 600));
    const back = new URL(given.location ?? '');
    assert.equal(`${back.origin}${back.pathname}`, 'https://wheel.example.org/thanks');
    const id = Number(back.searchParams.get('donation_id'));
    const made = await deps.db.selectFrom('donations').select(['amount_cents', 'external_id', 'metadata', 'share', 'designation']).where('id', '=', id).executeTakeFirstOrThrow();
    assert.deepEqual(
      { ...made, metadata: JSON.parse(made.metadata ?? '{}') },
      { amount_cents: 25_00, external_id: 'wheel-7', metadata: { slot: '4', _source: 'donate_link' }, share: 'anonymous', designation: 'Food run' },
    );

    // Refused, and nothing written: another origin (an open redirect), a return address without its
    // app, an unknown app, metadata that is not an object of strings, a second donation with the id.
    const before = await fingerprint(deps);
    for (const [params, status, code] of [
      [{ app: wheel.client_id, success_url: 'https://evil.example.com/thanks' }, 422, 'return_url_not_registered'],
      [{ app: wheel.client_id, exit_url: 'https://wheel.example.org.evil.example.com/' }, 422, 'return_url_not_registered'],
      [{ success_url: 'https://wheel.example.org/thanks' }, 422, 'return_url_not_registered'],
      [{ app: 'app_000000000000000000000000' }, 404, 'app_not_found'],
      [{ metadata: '{"k": 1}' }, 422, 'validation_failed'],
      [{ metadata: 'not json' }, 422, 'validation_failed'],
      [{ frequency: 'daily' }, 422, 'validation_failed'],
    ] as const) {
      const refused = await browser.get(link(params));
      assert.equal(refused.status, status, JSON.stringify(params));
      assert.match(refused.body, new RegExp(`data-problem="${code}"`), JSON.stringify(params));
      // The same fields sent in a confirmation form are refused the same way.
      const posted = await browser.post('/dashboard/donations', { ein: EIN, from: 'link', amount: '25', visibility: 'public', ...params });
      assert.equal(posted.status, 422, `posted ${JSON.stringify(params)}`);
      assert.equal(posted.location, undefined, 'no one is sent anywhere');
    }
    const again = await browser.post('/dashboard/donations', { ...fields, amount: '25', visibility: 'public' });
    assert.equal(again.status, 409, 'the link was used: its external id is taken');
    assert.match(textOf(again.body), /external_id/);
    assert.deepEqual(await fingerprint(deps), before);

    // Monthly: a recurring donation, with the link's id and metadata.
    const monthly = await browser.get(link({ amount: '15', frequency: 'monthly', external_id: 'wheel-8', app: wheel.client_id, success_url: 'https://wheel.example.org/thanks' }));
    assert.match(textOf(monthly.body), /every month, from today/);
    const scheduled = await browser.post('/dashboard/scheduled', { ...hiddenFields(monthly.body), amount: '15' });
    assert.equal(scheduled.status, 303, textOf(scheduled.body).slice(0, 700));
    const scheduleId = Number(new URL(scheduled.location ?? '').searchParams.get('scheduled_donation_id'));
    const schedule = await deps.db
      .selectFrom('scheduled_donations')
      .select(['amount_cents', 'frequency', 'external_id', 'metadata'])
      .where('id', '=', scheduleId)
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      { ...schedule, metadata: JSON.parse(schedule.metadata ?? '{}') },
      { amount_cents: 15_00, frequency: 'Monthly', external_id: 'wheel-8', metadata: { _source: 'donate_link' } },
    );
  });

  test('the donate button: a script for other pages, that only styles the links', async () => {
    const { app } = env();
    const script = await app.inject({ method: 'GET', url: '/static/donate-button.js' });
    assert.deepEqual([script.statusCode, script.headers['content-type']], [200, 'text/javascript; charset=utf-8']);
    assert.match(script.body, /a\.almoner-donate/);
    assert.match(script.body, /min-height:44px/, 'large enough to tap');
    assert.doesNotMatch(script.body, /fetch\(|XMLHttpRequest|sendBeacon|document\.cookie/, 'it sends and reads nothing');
  });
});
