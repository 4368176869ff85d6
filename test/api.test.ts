// Every endpoint of spec part 4, on every engine: status, exact field sets
// of part 2 (as rules §8 refines them), types, and the rules of the spec.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { engines, openEnv, makeUser, fund, makeNonProfit, call, assertLedgerBalanced, assertSchema, type TestEnv, type TestUser } from './harness.ts';
import { insertFollow } from '../src/modules/users/users.store.ts';
import { compileEverySerializer } from '../src/http/serializers.ts';
import { compileEveryValidator } from '../src/http/validation.ts';
import { recordContribution } from '../src/modules/contributions/index.ts';
import { applyDonationEvent } from '../src/modules/donations/index.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
const keys = (o: object) => Object.keys(o).sort();
/** The object's fields are exactly `fields`, except that `note` appears only when present (spec 2.1, 2.3). */
function assertFields(o: Record<string, unknown>, fields: string[]): void {
  const expected = fields.filter((f) => f !== 'note' || o.note !== undefined);
  assert.deepEqual(keys(o), [...expected].sort());
}

const NON_PROFIT_22 = ['ein', 'name', 'website', 'city', 'state', 'logo', 'public_path', 'public_url', 'cause_id'].sort();
const DONATION_21 = ['id', 'amount', 'status', 'note', 'scheduled_donation_id', 'visibility', 'created_at', 'mailed_at', 'non_profit', 'fund', 'user'].sort();
const DONATION_23 = ['id', 'user_id', 'status', 'note', 'created_at', 'mailed_at', 'non_profit'].sort();
const DONATION_23_OWN = [...DONATION_23, 'amount', 'visibility'].sort();
const GIFT_24 = ['name', 'amount', 'message', 'code', 'ein', 'seen', 'status', 'updated_at', 'created_at', 'claimed', 'url'].sort();
const NON_PROFIT_25 = ['id', 'ein', 'name', 'website', 'city', 'state', 'public_path', 'public_url', 'latitude', 'longitude', 'logo', 'cause', 'causes'].sort();
const PROFILE_26 = ['id', 'name', 'avatar', 'cover_image', 'slug', 'fund_name', 'current_fund', 'follows_user', 'follows_viewer', 'onboarding_status'].sort();
const CAUSE_27 = ['id', 'name', 'logo', 'color'].sort();
const CONTRIBUTION_28 = ['id', 'units', 'type', 'status', 'valuation', 'currency', 'frequency', 'created_at', 'received_at', 'completed_at'].sort();
const BALANCE_29 = ['amount', 'pending_deposit_balance', 'portfolio_balance', 'available_balance'].sort();

for (const { name: engine } of engines()) {
  describe(`API on ${engine}`, () => {
    let env: TestEnv;
    let ada: TestUser;
    let bob: TestUser;
    let hidden: TestUser;

    before(async () => {
      env = await openEnv(engine);
      await makeNonProfit(env.deps, { ein: '030179298', name: 'Middlebury College', city: 'Middlebury', website: 'https://www.middlebury.edu' });
      await makeNonProfit(env.deps, { ein: '261544963', name: 'Vermont Foodbank', ntee_code: 'K31', cause_id: 9 });
      await makeNonProfit(env.deps, { ein: '111111111', name: 'Social Club of Vermont', eligible: 0 });
      ada = await makeUser(env.deps, { name: 'Ada Lovelace', slug: 'ada', cause_ids: [2, 19] });
      bob = await makeUser(env.deps, { name: 'Bob Builder', slug: 'bob' });
      hidden = await makeUser(env.deps, { name: 'Hidden Person', slug: 'hidden', visible: false });
      await fund(env.deps, ada, 100_000);
      await fund(env.deps, bob, 100_000);
      await fund(env.deps, hidden, 100_000);
    });
    after(async () => env.close());

    test('POST /v1/donations creates a scheduled donation (201, Location, owner form 2.3) and holds the money', async () => {
      const res = await call(env.app, 'POST', '/v1/donations', { key: ada.key, body: { amount: 25.5, ein: '03-0179298', note: 'Hi', private_memo: 'secret' } });
      assert.equal(res.status, 201);
      assert.deepEqual(keys(res.body), DONATION_23_OWN);
      assertSchema(env.app, 'UserDonation', res.body);
      assert.equal(res.body.amount, 25.5);
      assert.equal(res.body.status, 'scheduled');
      assert.equal(res.body.visibility, 'public');
      assert.equal(res.body.user_id, ada.user_id);
      assert.equal(res.body.note, 'Hi');
      assert.match(res.body.created_at, ISO);
      assert.equal(res.body.mailed_at, null);
      assert.deepEqual(keys(res.body.non_profit), NON_PROFIT_22);
      assert.equal(res.body.non_profit.ein, '030179298');
      assert.equal(res.body.non_profit.website, 'https://www.middlebury.edu');
      assert.equal(res.body.non_profit.public_url, `https://almoner.test${res.body.non_profit.public_path}`);
      assert.equal(res.headers.location, `/v1/users/${ada.user_id}/donations/${res.body.id}`);
      assert.equal(JSON.stringify(res.body).includes('secret'), false, 'the private memo is never returned');
      const balance = await call(env.app, 'GET', '/v1/users/me/balance', { key: ada.key });
      assert.deepEqual(balance.body, { amount: 1000, pending_deposit_balance: 0, portfolio_balance: 0, available_balance: 974.5 });
    });

    test('POST /v1/donations beyond the available balance waits for funds and holds nothing', async () => {
      const before = await call(env.app, 'GET', '/v1/users/me/balance', { key: ada.key });
      const res = await call(env.app, 'POST', '/v1/donations', { key: ada.key, body: { amount: 5000, ein: '261544963' } });
      assert.equal(res.status, 201);
      assert.equal(res.body.status, 'waiting_for_funds');
      const afterBalance = await call(env.app, 'GET', '/v1/users/me/balance', { key: ada.key });
      assert.deepEqual(afterBalance.body, before.body);
    });

    test('the minimum donation is 10 and the minimum gift is 18', async () => {
      assert.equal((await call(env.app, 'POST', '/v1/donations', { key: ada.key, body: { amount: 10, ein: '261544963' } })).status, 201);
      const low = await call(env.app, 'POST', '/v1/donations', { key: ada.key, body: { amount: 9.99, ein: '261544963' } });
      assert.equal(low.status, 422);
      assert.equal(low.body.code, 'amount_below_minimum');
      assert.equal((await call(env.app, 'POST', '/v1/gifts', { key: ada.key, body: { amount: 18, name: 'Charles' } })).status, 201);
      const lowGift = await call(env.app, 'POST', '/v1/gifts', { key: ada.key, body: { amount: 17.99, name: 'Charles' } });
      assert.equal(lowGift.status, 422);
      assert.equal(lowGift.body.code, 'amount_below_minimum');
    });

    test('POST /v1/users/:user_id/donations: own id creates, another visible id is 403, a hidden one 404', async () => {
      const own = await call(env.app, 'POST', `/v1/users/${ada.user_id}/donations`, { key: ada.key, body: { amount: 12, ein: '261544963' } });
      assert.equal(own.status, 201);
      assertFields(own.body, DONATION_23_OWN);
      const other = await call(env.app, 'POST', `/v1/users/${bob.user_id}/donations`, { key: ada.key, body: { amount: 12, ein: '261544963' } });
      assert.equal(other.status, 403);
      assert.equal(other.body.code, 'forbidden');
      const secret = await call(env.app, 'POST', `/v1/users/${hidden.user_id}/donations`, { key: ada.key, body: { amount: 12, ein: '261544963' } });
      assert.equal(secret.status, 404);
      assert.equal(secret.body.code, 'user_not_found');
    });

    test('donations to unknown and ineligible non-profits are refused', async () => {
      const unknown = await call(env.app, 'POST', '/v1/donations', { key: ada.key, body: { amount: 12, ein: '999999999' } });
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.code, 'non_profit_not_found');
      const ineligible = await call(env.app, 'POST', '/v1/donations', { key: ada.key, body: { amount: 12, ein: '111111111' } });
      assert.equal(ineligible.status, 422);
      assert.equal(ineligible.body.code, 'non_profit_ineligible');
    });

    test('GET /v1/donations lists the own donations in form 2.1, newest first', async () => {
      const res = await call(env.app, 'GET', '/v1/donations', { key: ada.key });
      assert.equal(res.status, 200);
      assert.deepEqual(keys(res.body), ['items', 'meta']);
      assert.ok(res.body.items.length >= 4);
      const first = res.body.items[res.body.items.length - 1];
      assertFields(first, DONATION_21);
      for (const item of res.body.items) assertSchema(env.app, 'OwnDonation', item);
      assert.deepEqual(keys(first.fund), ['id', 'name']);
      assert.deepEqual(keys(first.user), ['avatar', 'city', 'id', 'name', 'slug']);
      assert.equal(first.user.slug, 'ada');
      assert.equal(first.fund.id, ada.fund_id);
      assert.equal(first.scheduled_donation_id, null);
      const ids = res.body.items.map((d: { id: number }) => d.id);
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => b - a),
      );
      assert.equal(res.body.meta.count, res.body.items.length);
      const noNote = res.body.items.find((d: { id: number; note?: string }) => d.note === undefined);
      assert.ok(noNote, 'a donation without a note has no note field');
    });

    test("GET /v1/donations/:id returns an own donation; another user's is 404", async () => {
      const created = await call(env.app, 'POST', '/v1/donations', { key: bob.key, body: { amount: 20, ein: '261544963' } });
      const own = await call(env.app, 'GET', `/v1/donations/${created.body.id}`, { key: bob.key });
      assert.equal(own.status, 200);
      assertFields(own.body, DONATION_21);
      const other = await call(env.app, 'GET', `/v1/donations/${created.body.id}`, { key: ada.key });
      assert.equal(other.status, 404);
      assert.equal(other.body.code, 'donation_not_found');
    });

    test('other users see only public donations, with exactly the form 2.3 fields', async () => {
      const pub = await call(env.app, 'POST', '/v1/donations', { key: bob.key, body: { amount: 30, ein: '261544963', note: 'public one' } });
      const priv = await call(env.app, 'POST', '/v1/donations', { key: bob.key, body: { amount: 40, ein: '261544963', visibility: 'private', private_memo: 'memo' } });
      const list = await call(env.app, 'GET', `/v1/users/${bob.user_id}/donations`, { key: ada.key });
      assert.equal(list.status, 200);
      const ids = list.body.items.map((d: { id: number }) => d.id);
      assert.ok(ids.includes(pub.body.id));
      assert.ok(!ids.includes(priv.body.id));
      for (const item of list.body.items) {
        assert.ok(
          keys(item).every((k) => DONATION_23.includes(k)),
          `reduced fields only: ${keys(item)}`,
        );
        assert.equal(item.amount, undefined);
        assertSchema(env.app, 'UserDonation', item);
      }
      const one = await call(env.app, 'GET', `/v1/users/${bob.user_id}/donations/${pub.body.id}`, { key: ada.key });
      assert.equal(one.status, 200);
      assert.deepEqual(keys(one.body), DONATION_23);
      const hiddenOne = await call(env.app, 'GET', `/v1/users/${bob.user_id}/donations/${priv.body.id}`, { key: ada.key });
      assert.equal(hiddenOne.status, 404);
      assert.equal(hiddenOne.body.code, 'donation_not_found');
      const ownView = await call(env.app, 'GET', `/v1/users/${bob.user_id}/donations/${priv.body.id}`, { key: bob.key });
      assert.equal(ownView.status, 200);
      assertFields(ownView.body, DONATION_23_OWN);
      const ownList = await call(env.app, 'GET', `/v1/users/me/donations`, { key: bob.key });
      assert.ok(ownList.body.items.some((d: { id: number }) => d.id === priv.body.id));
      const wrongUser = await call(env.app, 'GET', `/v1/users/${ada.user_id}/donations/${pub.body.id}`, { key: ada.key });
      assert.equal(wrongUser.status, 404);
    });

    test('a hidden profile is 404 to others, with its donations and causes', async () => {
      await call(env.app, 'POST', '/v1/donations', { key: hidden.key, body: { amount: 30, ein: '261544963' } });
      for (const url of [`/v1/users/${hidden.user_id}`, '/v1/users/hidden', `/v1/users/${hidden.user_id}/donations`, `/v1/users/${hidden.user_id}/causes`]) {
        const res = await call(env.app, 'GET', url, { key: ada.key });
        assert.equal(res.status, 404, url);
        assert.equal(res.body.code, 'user_not_found', url);
      }
      const own = await call(env.app, 'GET', '/v1/users/me', { key: hidden.key });
      assert.equal(own.body.visible, false);
    });

    test('DELETE /v1/donations/:id cancels scheduled and waiting donations, keeps the record, releases the hold', async () => {
      const before = (await call(env.app, 'GET', '/v1/users/me/balance', { key: bob.key })).body;
      const d = await call(env.app, 'POST', '/v1/donations', { key: bob.key, body: { amount: 100, ein: '261544963' } });
      const del = await call(env.app, 'DELETE', `/v1/donations/${d.body.id}`, { key: bob.key });
      assert.equal(del.status, 200);
      assert.deepEqual(del.body, {});
      const after = (await call(env.app, 'GET', '/v1/users/me/balance', { key: bob.key })).body;
      assert.deepEqual(after, before);
      const kept = await call(env.app, 'GET', `/v1/donations/${d.body.id}`, { key: bob.key });
      assert.equal(kept.body.status, 'not_completed');
      const again = await call(env.app, 'DELETE', `/v1/donations/${d.body.id}`, { key: bob.key });
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'donation_not_cancellable');
      const waiting = await call(env.app, 'POST', '/v1/donations', { key: bob.key, body: { amount: 1_000_000, ein: '261544963' } });
      assert.equal(waiting.body.status, 'waiting_for_funds');
      assert.equal((await call(env.app, 'DELETE', `/v1/donations/${waiting.body.id}`, { key: bob.key })).status, 200);
    });

    test('a donation accepted or rejected by the platform cannot be cancelled', async () => {
      for (const events of [['approve'], ['reject'], ['approve', 'pay'], ['approve', 'mail_check']] as const) {
        const d = await call(env.app, 'POST', '/v1/donations', { key: bob.key, body: { amount: 10, ein: '261544963' } });
        for (const e of events) await applyDonationEvent(env.deps, 'live', d.body.id, e);
        const del = await call(env.app, 'DELETE', `/v1/donations/${d.body.id}`, { key: bob.key });
        assert.equal(del.status, 409, events.join(','));
        assert.equal(del.body.code, 'donation_not_cancellable');
      }
    });

    test("cancelling another user's donation is 404 and changes nothing", async () => {
      const d = await call(env.app, 'POST', '/v1/donations', { key: bob.key, body: { amount: 10, ein: '261544963' } });
      const del = await call(env.app, 'DELETE', `/v1/donations/${d.body.id}`, { key: ada.key });
      assert.equal(del.status, 404);
      assert.equal(del.body.code, 'donation_not_found');
      assert.equal((await call(env.app, 'GET', `/v1/donations/${d.body.id}`, { key: bob.key })).body.status, 'scheduled');
    });

    test("gifts: create holds the amount; new gifts have the spec's initial fields; list and read", async () => {
      const before = (await call(env.app, 'GET', '/v1/users/me/balance', { key: bob.key })).body;
      const res = await call(env.app, 'POST', '/v1/gifts', { key: bob.key, body: { name: 'Charles Babbage', amount: 50, message: 'Enjoy', email: 'c@example.org' } });
      assert.equal(res.status, 201);
      assert.deepEqual(keys(res.body), GIFT_24);
      assertSchema(env.app, 'Gift', res.body);
      assert.equal(res.body.status, 'new');
      assert.equal(res.body.seen, false);
      assert.equal(res.body.claimed, false);
      assert.equal(res.body.ein, null);
      assert.equal(res.body.message, 'Enjoy');
      assert.equal(res.body.updated_at, res.body.created_at);
      assert.match(res.body.code, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.equal(res.body.url, `https://almoner.test/gifts/${res.body.code}`);
      assert.equal(res.headers.location, `/v1/gifts/${res.body.code}`);
      assert.equal(JSON.stringify(res.body).includes('c@example.org'), false, 'email is never returned');
      const noMessage = await call(env.app, 'POST', '/v1/gifts', { key: bob.key, body: { name: 'Ada', amount: 18 } });
      assert.equal(noMessage.body.message, null);
      const after = (await call(env.app, 'GET', '/v1/users/me/balance', { key: bob.key })).body;
      assert.equal(Math.round((before.available_balance - after.available_balance) * 100), 6800);
      assert.equal(after.amount, before.amount);
      const one = await call(env.app, 'GET', `/v1/gifts/${res.body.code}`, { key: bob.key });
      assert.deepEqual(one.body, res.body);
      const others = await call(env.app, 'GET', `/v1/gifts/${res.body.code}`, { key: ada.key });
      assert.equal(others.status, 404);
      assert.equal(others.body.code, 'gift_not_found');
      const list = await call(env.app, 'GET', '/v1/gifts', { key: bob.key });
      assert.equal(list.body.items[0].code, noMessage.body.code);
      assert.equal(list.body.meta.count, 2);
    });

    test('a gift beyond the available balance is 422 insufficient_funds', async () => {
      const poor = await makeUser(env.deps);
      const res = await call(env.app, 'POST', '/v1/gifts', { key: poor.key, body: { name: 'Someone', amount: 18 } });
      assert.equal(res.status, 422);
      assert.equal(res.body.code, 'insufficient_funds');
      assert.equal((await call(env.app, 'GET', '/v1/gifts', { key: poor.key })).body.meta.count, 0);
    });

    test('GET /v1/non_profits/:ein (form 2.5 with id) and search (paginated, by name, EIN, city, cause)', async () => {
      const one = await call(env.app, 'GET', '/v1/non_profits/26-1544963', { key: ada.key });
      assert.equal(one.status, 200);
      assert.deepEqual(keys(one.body), NON_PROFIT_25);
      assertSchema(env.app, 'NonProfit', one.body);
      assert.equal(typeof one.body.id, 'number');
      assert.equal(one.body.ein, '261544963');
      assert.deepEqual(keys(one.body.cause), CAUSE_27);
      assert.equal(one.body.cause.id, 9);
      assert.match(one.body.cause.color, /^#[0-9A-F]{6}$/i);
      assert.deepEqual(one.body.causes, [one.body.cause]);
      assert.equal(one.body.public_path, '/charities/261544963-vermont-foodbank-burlington-vt');
      const missing = await call(env.app, 'GET', '/v1/non_profits/999999999', { key: ada.key });
      assert.equal(missing.status, 404);
      assert.equal(missing.body.code, 'non_profit_not_found');
      const bad = await call(env.app, 'GET', '/v1/non_profits/12345', { key: ada.key });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.code, 'invalid_parameter');
      const byName = await call(env.app, 'GET', '/v1/non_profits?query=foodbank', { key: ada.key });
      assert.deepEqual(
        byName.body.items.map((n: { ein: string }) => n.ein),
        ['261544963'],
      );
      assert.deepEqual(keys(byName.body.items[0]), NON_PROFIT_25);
      const byPrefix = await call(env.app, 'GET', '/v1/non_profits?query=Vermont', { key: ada.key });
      assert.equal(byPrefix.body.items[0].ein, '261544963', 'a name starting with the text ranks before one containing it');
      assert.equal((await call(env.app, 'GET', '/v1/non_profits?query=26-1544963', { key: ada.key })).body.items[0].ein, '261544963');
      assert.equal((await call(env.app, 'GET', '/v1/non_profits?query=middlebury', { key: ada.key })).body.items[0].ein, '030179298');
      const byCause = await call(env.app, 'GET', '/v1/non_profits?cause_id=9', { key: ada.key });
      assert.deepEqual(
        byCause.body.items.map((n: { ein: string }) => n.ein),
        ['261544963'],
      );
      const literal = await call(env.app, 'GET', '/v1/non_profits?query=%25', { key: ada.key });
      assert.equal(literal.body.meta.count, 0, 'a query of punctuation only matches nothing');
    });

    test('GET /v1/users/me and /v1/users/:username: form 2.6, visible only in the own profile, follows', async () => {
      await insertFollow(env.deps.db, ada.user_id, bob.user_id, new Date().toISOString());
      const me = await call(env.app, 'GET', '/v1/users/me', { key: ada.key });
      assert.equal(me.status, 200);
      assert.deepEqual(keys(me.body), [...PROFILE_26, 'visible'].sort());
      assertSchema(env.app, 'Profile', me.body);
      assert.equal(me.body.visible, true);
      assert.deepEqual(keys(me.body.current_fund), ['causes', 'id', 'name', 'summary', 'users']);
      assert.deepEqual(
        me.body.current_fund.causes.map((c: { id: number }) => c.id),
        [2, 19],
      );
      assert.deepEqual(keys(me.body.current_fund.causes[0]), CAUSE_27);
      assert.deepEqual(keys(me.body.current_fund.users[0]), ['avatar', 'id', 'name', 'slug']);
      assert.equal(me.body.fund_name, me.body.current_fund.name);
      assert.ok(['none', 'complete'].includes(me.body.onboarding_status));
      const bobSeenByAda = await call(env.app, 'GET', '/v1/users/BOB', { key: ada.key });
      assert.equal(bobSeenByAda.status, 200);
      assert.deepEqual(keys(bobSeenByAda.body), PROFILE_26);
      assert.equal(bobSeenByAda.body.follows_user, true);
      assert.equal(bobSeenByAda.body.follows_viewer, false);
      const adaSeenByBob = await call(env.app, 'GET', `/v1/users/${ada.user_id}`, { key: bob.key });
      assert.equal(adaSeenByBob.body.slug, 'ada');
      assert.equal(adaSeenByBob.body.follows_user, false);
      assert.equal(adaSeenByBob.body.follows_viewer, true);
      const nobody = await call(env.app, 'GET', '/v1/users/nobody-here', { key: ada.key });
      assert.equal(nobody.status, 404);
      assert.equal(nobody.body.code, 'user_not_found');
    });

    test('GET /v1/users/:user_id/causes is a bare array of form 2.7', async () => {
      const res = await call(env.app, 'GET', `/v1/users/${ada.user_id}/causes`, { key: bob.key });
      assert.equal(res.status, 200);
      assert.ok(Array.isArray(res.body));
      assert.deepEqual(
        res.body.map((c: { id: number }) => c.id),
        [2, 19],
      );
      for (const c of res.body) {
        assert.deepEqual(keys(c), CAUSE_27);
        assertSchema(env.app, 'Cause', c);
      }
      assert.deepEqual((await call(env.app, 'GET', `/v1/users/${bob.user_id}/causes`, { key: ada.key })).body, []);
    });

    test('GET /v1/users/me/balance: form 2.9 from the journal; amount = available + reserved + portfolio', async () => {
      const fresh = await makeUser(env.deps);
      await fund(env.deps, fresh, 50_000);
      await recordContribution(env.deps, {
        user_id: fresh.user_id,
        fund_id: fresh.fund_id,
        type: 'check_payment',
        units: '120.5',
        valuation: '1',
        currency: 'USD',
        frequency: 'OneTime',
        status: 'pending',
      });
      await call(env.app, 'POST', '/v1/donations', { key: fresh.key, body: { amount: 100, ein: '261544963' } });
      const res = await call(env.app, 'GET', '/v1/users/me/balance', { key: fresh.key });
      assert.equal(res.status, 200);
      assert.deepEqual(keys(res.body), BALANCE_29);
      assertSchema(env.app, 'Balance', res.body);
      assert.deepEqual(res.body, { amount: 500, pending_deposit_balance: 120.5, portfolio_balance: 0, available_balance: 400 });
    });

    test("GET /v1/contributions: the own contributions in form 2.8, newest first; nobody else's", async () => {
      const fresh = await makeUser(env.deps);
      await recordContribution(env.deps, {
        user_id: fresh.user_id,
        fund_id: fresh.fund_id,
        type: 'stock_payment',
        units: '10.5',
        valuation: '187.42',
        currency: 'AAPL',
        frequency: 'OneTime',
        status: 'success',
      });
      await recordContribution(env.deps, {
        user_id: fresh.user_id,
        fund_id: fresh.fund_id,
        type: 'crypto_payment',
        units: '0.00012345',
        valuation: '64250.12345678',
        currency: 'BTC',
        frequency: 'Monthly',
        status: 'pending',
      });
      const res = await call(env.app, 'GET', '/v1/contributions', { key: fresh.key });
      assert.equal(res.status, 200);
      assert.equal(res.body.meta.count, 2);
      const [btc, aapl] = res.body.items;
      assert.deepEqual(keys(btc), CONTRIBUTION_28);
      for (const item of res.body.items) assertSchema(env.app, 'Contribution', item);
      assert.equal(btc.units, 0.00012345);
      assert.equal(btc.valuation, 64250.12345678);
      assert.equal(btc.currency, 'BTC');
      assert.equal(btc.frequency, 'Monthly');
      assert.equal(btc.status, 'pending');
      assert.match(btc.received_at, ISO);
      assert.equal(btc.completed_at, null);
      assert.equal(aapl.type, 'stock_payment');
      assert.match(aapl.completed_at, ISO);
      const bal = await call(env.app, 'GET', '/v1/users/me/balance', { key: fresh.key });
      assert.equal(bal.body.available_balance, 1967.91); // 10.5 x 187.42 = 1967.91
      assert.equal(bal.body.pending_deposit_balance, 7.93); // 0.00012345 x 64250.12345678 = 7.9316777... -> 7.93
      assert.equal(
        (await call(env.app, 'GET', '/v1/contributions', { key: ada.key })).body.items.some((c: { currency: string }) => c.currency === 'BTC'),
        false,
      );
    });

    test('a cleared contribution promotes waiting donations, oldest first', async () => {
      const fresh = await makeUser(env.deps);
      const first = await call(env.app, 'POST', '/v1/donations', { key: fresh.key, body: { amount: 60, ein: '261544963' } });
      const second = await call(env.app, 'POST', '/v1/donations', { key: fresh.key, body: { amount: 50, ein: '261544963' } });
      assert.equal(first.body.status, 'waiting_for_funds');
      await fund(env.deps, fresh, 10_000);
      const statuses = async () => Promise.all([first, second].map(async (d) => (await call(env.app, 'GET', `/v1/donations/${d.body.id}`, { key: fresh.key })).body.status));
      assert.deepEqual(await statuses(), ['scheduled', 'waiting_for_funds']);
      await fund(env.deps, fresh, 5_000);
      assert.deepEqual(await statuses(), ['scheduled', 'scheduled']);
      assert.equal((await call(env.app, 'GET', '/v1/users/me/balance', { key: fresh.key })).body.available_balance, 40);
    });

    test('the same routes answer under /public/api/v1', async () => {
      const res = await call(env.app, 'GET', '/public/api/v1/users/me', { key: ada.key });
      assert.equal(res.status, 200);
      assert.equal(res.body.slug, 'ada');
      const created = await call(env.app, 'POST', '/public/api/v1/donations', { key: ada.key, body: { amount: 10, ein: '261544963' } });
      assert.equal(created.status, 201);
      // Links and messages quote the path the client used.
      const list = await call(env.app, 'GET', '/public/api/v1/donations?per_page=1', { key: ada.key });
      assert.equal(list.status, 200);
      assert.match(String(list.headers.link), /^<\/public\/api\/v1\/donations\?per_page=1&page=1|^<\/public\/api\/v1\/donations\?page=1&per_page=1/);
      const missing = await call(env.app, 'GET', '/public/api/v1/nothing', { key: ada.key });
      assert.equal(missing.status, 404);
      assert.match(missing.body.detail, /GET \/public\/api\/v1\/nothing/);
      assert.equal((await call(env.app, 'DELETE', '/public/api/v1/users/me', { key: ada.key })).status, 405);
      // Only the whole prefix is the API's: a look-alike path is nobody's.
      assert.equal((await call(env.app, 'GET', '/public/api/v1x/users/me', { key: ada.key })).status, 404);
      // One set of routes: none is listed twice in the OpenAPI document.
      const doc = (await call(env.app, 'GET', '/openapi.json')).body as { paths: Record<string, unknown> };
      assert.ok(!Object.keys(doc.paths).some((p) => p.startsWith('/public/')));
    });

    test("every route's schemas compile (each is compiled at its first use, not at start)", () => {
      // A schema Ajv or the serializer cannot build fails here, not at some route's first request in production.
      assert.ok(compileEveryValidator().total > 50, "the validators of every route's schemas (the same text once)");
      assert.ok(compileEverySerializer().total > 50, "the serializers of every route's answers");
      assert.deepEqual([compileEveryValidator().compiled, compileEverySerializer().compiled], [0, 0], 'nothing left unbuilt');
    });

    test('API keys: create (shown once), list (last 4), revoke takes effect on the next request', async () => {
      const created = await call(env.app, 'POST', '/v1/api_keys', { key: bob.key, body: { name: 'ci' } });
      assert.equal(created.status, 201);
      assert.match(created.body.key, /^alm_live_[0-9A-Za-z]{40}$/);
      assert.equal(created.body.last4, created.body.key.slice(-4));
      const list = await call(env.app, 'GET', '/v1/api_keys', { key: created.body.key });
      const listed = list.body.items.find((k: { id: number }) => k.id === created.body.id);
      assert.equal(listed.key, undefined, 'the full key is never listed');
      assert.equal(listed.name, 'ci');
      assert.match(listed.last_used_at, ISO, 'using the key records when');
      const stored = await env.deps.db.selectFrom('api_keys').select('key_hash').where('id', '=', created.body.id).executeTakeFirstOrThrow();
      assert.notEqual(stored.key_hash, created.body.key);
      assert.match(stored.key_hash, /^[0-9a-f]{64}$/);
      assert.equal((await call(env.app, 'DELETE', `/v1/api_keys/${created.body.id}`, { key: bob.key })).status, 200);
      const after = await call(env.app, 'GET', '/v1/users/me', { key: created.body.key });
      assert.equal(after.status, 401);
      assert.equal(after.body.code, 'invalid_api_key');
      const otherUsers = await call(env.app, 'DELETE', `/v1/api_keys/${created.body.id}`, { key: ada.key });
      assert.equal(otherUsers.status, 404);
    });

    test('the journal balances after everything above', async () => {
      await assertLedgerBalanced(env.deps);
    });
  });
}
