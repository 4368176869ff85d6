// Partner fields on donations (docs/rules.md §21), on both engines: an app with a token from Login
// with Almoner creates donations with its own ids and metadata, a replay is refused naming the
// first (even five at the same moment make one), it finds one by its id, changes the metadata;
// the fields are its owner's only, and ride in events' deliveries and the CSV export. Bad input
// changes nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import { call, describeEachEngine, fingerprint, fund, makeNonProfit, makeUser } from './harness.ts';
import { connectApp } from './app-tokens.ts';

const EIN = '261544963';

describeEachEngine('partner fields on donations', (env) => {
  test("an app's own ids and metadata: made, replayed, found, changed, the owner's only, in deliveries and exports", async () => {
    const { app, deps } = env();
    await makeNonProfit(deps, { ein: EIN, name: 'Vermont Foodbank' });
    const donor = await makeUser(deps, { name: 'Dana Donor' });
    const stranger = await makeUser(deps, { name: 'Sam Stranger' });
    await fund(deps, donor, 1_000_00);
    const tokens = await connectApp(deps, donor.user_id, { scopes: ['read', 'donate'] });
    const headers = { authorization: `Bearer ${tokens.accessToken}` };
    const donate = (body: Record<string, unknown>) => call(app, 'POST', '/v1/donations', { headers, body: { ein: EIN, amount: 10, ...body } });

    const made = await donate({ external_id: 'order-1', metadata: { campaign: 'spring', wheel: 'slot 4' } });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.deepEqual([made.body.external_id, made.body.metadata], ['order-1', { campaign: 'spring', wheel: 'slot 4' }]);

    // A replay with the same id: refused, naming the first; nothing written.
    let before = await fingerprint(deps);
    const again = await donate({ external_id: 'order-1' });
    assert.deepEqual([again.status, again.body.code], [409, 'external_id_exists']);
    assert.match(again.body.detail, new RegExp(`donation ${made.body.id} `));
    assert.deepEqual(await fingerprint(deps), before);

    // Five at the same moment with one id: one is made, four are refused naming it.
    const racing = await Promise.all(Array.from({ length: 5 }, () => donate({ external_id: 'order-2' })));
    const winners = racing.filter((r) => r.status === 201);
    assert.equal(winners.length, 1, JSON.stringify(racing.map((r) => [r.status, r.body.code])));
    for (const r of racing.filter((x) => x.status !== 201)) {
      assert.deepEqual([r.status, r.body.code], [409, 'external_id_exists']);
      assert.match(r.body.detail, new RegExp(`donation ${winners[0]?.body.id} `));
    }
    const counted = await deps.db.selectFrom('donations').select('id').where('external_id', '=', 'order-2').execute();
    assert.equal(counted.length, 1);

    // Found by its id; another user's same id is theirs alone.
    const found = await call(app, 'GET', '/v1/donations?external_id=order-1', { headers });
    assert.deepEqual(
      found.body.items.map((d: { id: number }) => d.id),
      [made.body.id],
    );
    assert.deepEqual((await call(app, 'GET', '/v1/donations?external_id=nothing', { headers })).body.items, []);
    await fund(deps, stranger, 100_00);
    const theirs = await call(app, 'POST', '/v1/donations', { key: stranger.key, body: { ein: EIN, amount: 10, external_id: 'order-1' } });
    assert.equal(theirs.status, 201, 'external ids are unique per owner');
    assert.deepEqual((await call(app, 'GET', '/v1/donations?external_id=order-1', { key: stranger.key })).body.items[0].id, theirs.body.id);

    // The owner's only: in their own forms, never in what others see.
    const own = await call(app, 'GET', `/v1/donations/${made.body.id}`, { key: donor.key });
    assert.deepEqual([own.body.external_id, own.body.metadata], ['order-1', { campaign: 'spring', wheel: 'slot 4' }]);
    const ownList = await call(app, 'GET', '/v1/donations', { key: donor.key });
    assert.equal(ownList.body.items.find((d: { id: number }) => d.id === made.body.id).external_id, 'order-1');
    const seen = await call(app, 'GET', `/v1/users/${donor.user_id}/donations`, { key: stranger.key });
    assert.ok(seen.body.items.length > 0);
    for (const d of seen.body.items) assert.deepEqual([d.external_id, d.metadata], [undefined, undefined], 'another user sees no partner field');

    // The metadata changed: a key set to "" removed, another added.
    const changed = await call(app, 'PATCH', `/v1/donations/${made.body.id}`, { headers, body: { metadata: { wheel: '', source: 'giving wheel' } } });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual(changed.body.metadata, { campaign: 'spring', source: 'giving wheel' });

    // Bad input: refused with its code, nothing written.
    before = await fingerprint(deps);
    const fiftyOne = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
    for (const [label, body] of [
      ['51 keys', { metadata: fiftyOne }],
      ['a 41-character key', { metadata: { ['k'.repeat(41)]: 'v' } }],
      ['a 501-character value', { metadata: { k: 'v'.repeat(501) } }],
      ['a number', { metadata: { k: 5 } }],
      ['an object', { metadata: { k: { deep: 'x' } } }],
      ['an array', { metadata: ['x'] }],
      ['an external_id of 256 characters', { external_id: 'x'.repeat(256) }],
      ['an empty external_id', { external_id: '' }],
    ] as const) {
      const res = await donate(body);
      assert.deepEqual([res.status, res.body.code], [422, 'validation_failed'], label);
      if (!('external_id' in body)) {
        const patched = await call(app, 'PATCH', `/v1/donations/${made.body.id}`, { headers, body });
        assert.deepEqual([patched.status, patched.body.code], [422, 'validation_failed'], `PATCH: ${label}`);
      }
    }
    const notTheirs = await call(app, 'PATCH', `/v1/donations/${made.body.id}`, { key: stranger.key, body: { metadata: { k: 'v' } } });
    assert.deepEqual([notTheirs.status, notTheirs.body.code], [404, 'donation_not_found']);
    assert.deepEqual(await fingerprint(deps), before, 'nothing refused was written');

    // In what a webhook delivery of its events carries, and in the CSV export.
    const events = (await call(app, 'GET', '/v1/events', { key: donor.key })).body.items as Array<{ id: number; type: string }>;
    const updated = events.find((e) => e.type === 'donation.updated');
    assert.ok(updated !== undefined, 'the change of metadata is an event');
    const delivery = await call(app, 'GET', `/v1/events/${updated.id}/delivery`, { key: donor.key });
    const payload = JSON.parse(delivery.body.body) as { data: { external_id: string; metadata: Record<string, string> } };
    assert.deepEqual([payload.data.external_id, payload.data.metadata], ['order-1', { campaign: 'spring', source: 'giving wheel' }]);
    const csv = await app.inject({ method: 'GET', url: '/v1/donations', headers: { 'x-api-key': donor.key, accept: 'text/csv' } });
    const rows = parse(csv.body, { columns: true }) as Array<Record<string, string>>;
    const row = rows.find((r) => r.id === String(made.body.id));
    assert.deepEqual([row?.external_id, JSON.parse(row?.metadata ?? '{}')], ['order-1', { campaign: 'spring', source: 'giving wheel' }]);
  });

  test("a giver's own ids and metadata on gifts: made, replayed, found, changed; never what the recipient sees", async () => {
    const { app, deps } = env();
    const giver = await makeUser(deps, { name: 'Gil Giver' });
    const recipient = await makeUser(deps, { name: 'Rae Recipient' });
    await fund(deps, giver, 1_000_00);
    const tokens = await connectApp(deps, giver.user_id, { scopes: ['read', 'gifts'] });
    const headers = { authorization: `Bearer ${tokens.accessToken}` };
    const give = (body: Record<string, unknown>) => call(app, 'POST', '/v1/gifts', { headers, body: { name: 'Rae', amount: 20, ...body } });

    const made = await give({ external_id: 'wheel-7', metadata: { spin: '7' } });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.deepEqual([made.body.external_id, made.body.metadata], ['wheel-7', { spin: '7' }]);
    let before = await fingerprint(deps);
    const again = await give({ external_id: 'wheel-7' });
    assert.deepEqual([again.status, again.body.code], [409, 'external_id_exists']);
    assert.match(again.body.detail, new RegExp(`gift ${made.body.code} `));
    assert.deepEqual(await fingerprint(deps), before, 'the replay held nothing');
    const racing = await Promise.all(Array.from({ length: 4 }, () => give({ external_id: 'wheel-8' })));
    assert.deepEqual(racing.map((r) => r.status).sort(), [201, 409, 409, 409]);

    const found = await call(app, 'GET', '/v1/gifts?external_id=wheel-7', { headers });
    assert.deepEqual(
      found.body.items.map((g: { code: string }) => g.code),
      [made.body.code],
    );
    const changed = await call(app, 'PATCH', `/v1/gifts/${made.body.code}`, { headers, body: { metadata: { spin: '', prize: 'tea' } } });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual(changed.body.metadata, { prize: 'tea' });

    before = await fingerprint(deps);
    for (const body of [{ metadata: { k: 5 } }, { metadata: { ['k'.repeat(41)]: 'v' } }]) {
      const res = await call(app, 'PATCH', `/v1/gifts/${made.body.code}`, { headers, body });
      assert.deepEqual([res.status, res.body.code], [422, 'validation_failed'], JSON.stringify(body));
    }
    const notTheirs = await call(app, 'PATCH', `/v1/gifts/${made.body.code}`, { key: recipient.key, body: { metadata: { k: 'v' } } });
    assert.deepEqual([notTheirs.status, notTheirs.body.code], [404, 'gift_not_found']);
    assert.deepEqual(await fingerprint(deps), before, 'nothing refused was written');

    // The recipient's answer is the gift's form without the giver's fields.
    const accepted = await call(app, 'POST', `/v1/gifts/${made.body.code}/accept`, { key: recipient.key });
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    assert.deepEqual([accepted.body.external_id, accepted.body.metadata], [undefined, undefined]);
    // The giver's delivery of the change carries them.
    const events = (await call(app, 'GET', '/v1/events', { key: giver.key })).body.items as Array<{ id: number; type: string }>;
    const updated = events.find((e) => e.type === 'gift.updated');
    assert.ok(updated !== undefined);
    const payload = JSON.parse((await call(app, 'GET', `/v1/events/${updated.id}/delivery`, { key: giver.key })).body.body) as { data: { external_id: string } };
    assert.equal(payload.data.external_id, 'wheel-7');
  });

  test("an owner's own ids and metadata on recurring donations: made, replayed, found, changed", async () => {
    const { app, deps } = env();
    await makeNonProfit(deps, { ein: EIN, name: 'Vermont Foodbank' });
    const owner = await makeUser(deps, { name: 'Rita Recurring' });
    const plan = (body: Record<string, unknown>) => call(app, 'POST', '/v1/scheduled_donations', { key: owner.key, body: { ein: EIN, amount: 10, frequency: 'Monthly', ...body } });
    const made = await plan({ external_id: 'plan-1', metadata: { tier: 'gold' } });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.deepEqual([made.body.external_id, made.body.metadata], ['plan-1', { tier: 'gold' }]);
    const before = await fingerprint(deps);
    const again = await plan({ external_id: 'plan-1' });
    assert.deepEqual([again.status, again.body.code], [409, 'external_id_exists']);
    assert.match(again.body.detail, new RegExp(`recurring donation ${made.body.id} `));
    const bad = await plan({ metadata: { tier: 1 } });
    assert.deepEqual([bad.status, bad.body.code], [422, 'validation_failed']);
    assert.deepEqual(await fingerprint(deps), before);
    const found = await call(app, 'GET', '/v1/scheduled_donations?external_id=plan-1', { key: owner.key });
    assert.deepEqual(
      found.body.items.map((s: { id: number }) => s.id),
      [made.body.id],
    );
    const changed = await call(app, 'PATCH', `/v1/scheduled_donations/${made.body.id}`, { key: owner.key, body: { metadata: { tier: '', seats: '2' } } });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual(changed.body.metadata, { seats: '2' });
  });

  test("an owner's own ids and metadata on declared contributions: made, replayed, found, changed, exported", async () => {
    const { app, deps } = env();
    const owner = await makeUser(deps, { name: 'Cora Contributor' });
    const declare = (body: Record<string, unknown>) => call(app, 'POST', '/v1/contributions', { key: owner.key, body: { type: 'wire_payment', amount: 250, ...body } });
    const made = await declare({ external_id: 'wire-1', metadata: { batch: 'nov' } });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.deepEqual([made.body.external_id, made.body.metadata], ['wire-1', { batch: 'nov' }]);
    const before = await fingerprint(deps);
    const again = await declare({ external_id: 'wire-1' });
    assert.deepEqual([again.status, again.body.code], [409, 'external_id_exists']);
    assert.match(again.body.detail, new RegExp(`contribution ${made.body.id} `));
    const bad = await declare({ metadata: { ['k'.repeat(41)]: 'v' } });
    assert.deepEqual([bad.status, bad.body.code], [422, 'validation_failed']);
    assert.deepEqual(await fingerprint(deps), before);
    const found = await call(app, 'GET', '/v1/contributions?external_id=wire-1', { key: owner.key });
    assert.deepEqual(
      found.body.items.map((c: { id: number }) => c.id),
      [made.body.id],
    );
    const changed = await call(app, 'PATCH', `/v1/contributions/${made.body.id}`, { key: owner.key, body: { metadata: { batch: '', desk: 'east' } } });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual(changed.body.metadata, { desk: 'east' });
    const csv = await app.inject({ method: 'GET', url: '/v1/contributions', headers: { 'x-api-key': owner.key, accept: 'text/csv' } });
    const row = (parse(csv.body, { columns: true }) as Array<Record<string, string>>).find((r) => r.id === String(made.body.id));
    assert.deepEqual([row?.external_id, JSON.parse(row?.metadata ?? '{}')], ['wire-1', { desk: 'east' }]);
  });
});
