// Fundraisers (docs/rules.md §22), on both engines: a donor opens one for an organisation; others
// give to it through POST /v1/donations; its progress is what its donations hold or paid (a
// cancelled one leaves it, one waiting for money is not counted yet) and what was raised offline;
// supporters are named only as each donation lets; its owner ends it and it takes no more. Every
// refusal answers its code and writes nothing; almoner check holds throughout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addDays } from '../src/shared/days.ts';
import { forgetUser } from '../src/modules/privacy/privacy.service.ts';
import { runCheck } from '../src/modules/check/index.ts';
import { assertLedgerBalanced, call, describeEachEngine, fingerprint, fund, makeNonProfit, makeUser } from './harness.ts';

const EIN = '261544963';
const OTHER = '530196605';

describeEachEngine('fundraisers', (env) => {
  test('opened, given to, its progress and supporters, ended; the donations list by fundraiser', async () => {
    const { app, deps } = env();
    await makeNonProfit(deps, { ein: EIN, name: 'Vermont Foodbank' });
    await makeNonProfit(deps, { ein: OTHER, name: 'American Red Cross' });
    const ana = await makeUser(deps, { name: 'Ana Organiser' });
    const bo = await makeUser(deps, { name: 'Bo Giver' });
    const cy = await makeUser(deps, { name: 'Cy Quiet' });
    const dee = await makeUser(deps, { name: 'Dee Broke' });
    await fund(deps, bo, 500_00);
    await fund(deps, cy, 500_00);
    const today = deps.clock.now().toISOString().slice(0, 10);

    const opened = await call(app, 'POST', '/v1/fundraisers', {
      key: ana.key,
      body: {
        ein: '26-1544963',
        title: 'Bikes for the food run',
        story: 'We ride.',
        goal: 1000,
        offline_amount: 100,
        ends_on: addDays(today, 7),
        external_id: 'fr-1',
        metadata: { team: 'north' },
      },
    });
    assert.equal(opened.status, 201, JSON.stringify(opened.body));
    const id = opened.body.id;
    assert.equal(opened.headers.location, `/v1/fundraisers/${id}`);
    assert.deepEqual(
      [opened.body.status, opened.body.goal, opened.body.raised, opened.body.percent, opened.body.donations, opened.body.starts_on, opened.body.non_profit.ein],
      ['open', 1000, 100, 10, 0, today, EIN],
    );
    assert.deepEqual([opened.body.external_id, opened.body.metadata, opened.body.organizer.name], ['fr-1', { team: 'north' }, 'Ana Organiser']);
    assert.equal(opened.body.url, `${deps.config.publicUrl}/fundraisers/${id}`);
    assert.equal((await app.inject({ method: 'GET', url: `/fundraisers/${id}` })).statusCode, 200, 'its page is there');

    const give = (who: { key: string }, body: Record<string, unknown>) =>
      call(app, 'POST', '/v1/donations', { key: who.key, body: { ein: EIN, amount: 50, fundraiser_id: id, ...body } });
    const named = await give(bo, {});
    assert.equal(named.status, 201, JSON.stringify(named.body));
    assert.equal(named.body.fundraiser_id, id);
    const hidden = await give(bo, { amount: 25, visibility: 'private' });
    const anonymous = await give(cy, { amount: 40, share: 'anonymous' });
    const waiting = await give(dee, { amount: 30 });
    assert.deepEqual([hidden.status, anonymous.status, waiting.status, waiting.body.status], [201, 201, 201, 'waiting_for_funds']);

    // Anyone of the book sees progress (held money and offline; not the waiting one) and names only as each donation lets.
    const seen = await call(app, 'GET', `/v1/fundraisers/${id}`, { key: dee.key });
    assert.equal(seen.status, 200);
    assert.deepEqual([seen.body.raised, seen.body.donations, seen.body.percent], [215, 3, 21]);
    assert.deepEqual(
      seen.body.supporters.map((s: { name: string | null }) => s.name),
      [null, null, 'Bo Giver'],
      'newest first: anonymous, private, named',
    );
    assert.equal(seen.body.external_id, undefined, "the owner's partner fields are the owner's");
    assert.equal(seen.body.metadata, undefined);

    // A donor's own donations to it.
    const mine = await call(app, 'GET', `/v1/donations?fundraiser_id=${id}`, { key: bo.key });
    assert.deepEqual(mine.body.items.map((d: { id: number }) => d.id).sort(), [named.body.id, hidden.body.id].sort());
    assert.equal(mine.body.meta.count, 2);

    // A cancelled donation leaves its progress.
    assert.equal((await call(app, 'DELETE', `/v1/donations/${hidden.body.id}`, { key: bo.key })).status, 200);
    assert.equal((await call(app, 'GET', `/v1/fundraisers/${id}`, { key: bo.key })).body.raised, 190);

    // Its owner lists, finds by external id, changes metadata; others cannot.
    const listed = await call(app, 'GET', '/v1/fundraisers', { key: ana.key });
    assert.deepEqual([listed.body.meta.count, listed.body.items[0].id], [1, id]);
    assert.equal((await call(app, 'GET', '/v1/fundraisers?external_id=fr-1', { key: ana.key })).body.items[0].id, id);
    assert.equal((await call(app, 'GET', '/v1/fundraisers', { key: bo.key })).body.meta.count, 0);
    const patched = await call(app, 'PATCH', `/v1/fundraisers/${id}`, { key: ana.key, body: { metadata: { team: '', lead: 'Ana' } } });
    assert.deepEqual(patched.body.metadata, { lead: 'Ana' });
    let before = await fingerprint(deps);
    const theirs = await call(app, 'PATCH', `/v1/fundraisers/${id}`, { key: bo.key, body: { metadata: { x: 'y' } } });
    assert.deepEqual([theirs.status, theirs.body.code], [404, 'fundraiser_not_found']);
    const endTheirs = await call(app, 'POST', `/v1/fundraisers/${id}/end`, { key: bo.key });
    assert.deepEqual([endTheirs.status, endTheirs.body.code], [404, 'fundraiser_not_found']);
    assert.deepEqual(await fingerprint(deps), before);

    // Ended: it takes no more, and ending again is refused.
    const ended = await call(app, 'POST', `/v1/fundraisers/${id}/end`, { key: ana.key });
    assert.deepEqual([ended.status, ended.body.status, typeof ended.body.ended_at], [200, 'ended', 'string']);
    before = await fingerprint(deps);
    const late = await give(bo, {});
    assert.deepEqual([late.status, late.body.code], [409, 'fundraiser_not_open']);
    const again = await call(app, 'POST', `/v1/fundraisers/${id}/end`, { key: ana.key });
    assert.deepEqual([again.status, again.body.code], [409, 'fundraiser_ended']);
    assert.deepEqual(await fingerprint(deps), before);

    const events = await deps.db.selectFrom('events').select(['type', 'data']).where('object_type', '=', 'fundraiser').orderBy('id').execute();
    assert.deepEqual(
      events.map((e) => [e.type, JSON.parse(e.data)]),
      [
        ['fundraiser.created', { status: 'open' }],
        ['fundraiser.updated', { changed: 'metadata' }],
        ['fundraiser.updated', { status: 'ended' }],
      ],
    );
    await assertLedgerBalanced(deps, 'the fundraiser story');

    // Forgetting its organiser ends what they opened and removes their words; the donations stay.
    const another = (await call(app, 'POST', '/v1/fundraisers', { key: ana.key, body: { ein: EIN, title: 'Ana’s second', story: 'About Ana', goal: 10, metadata: { a: 'b' } } }))
      .body.id;
    await forgetUser(deps, ana.user_id, 'test');
    const forgotten = await call(app, 'GET', `/v1/fundraisers/${another}`, { key: bo.key });
    assert.deepEqual([forgotten.body.status, forgotten.body.title, forgotten.body.story, forgotten.body.organizer], ['ended', 'Fundraiser', '', null]);
    assert.equal((await call(app, 'GET', `/v1/fundraisers/${id}`, { key: bo.key })).body.raised, 190, 'its donations kept');
    await assertLedgerBalanced(deps, 'forgetting the organiser');
  });

  test('a donation names an open fundraiser of its own organisation and book, or is refused and nothing is written', async () => {
    const { app, deps } = env();
    await makeNonProfit(deps, { ein: EIN, name: 'Vermont Foodbank' });
    await makeNonProfit(deps, { ein: OTHER, name: 'American Red Cross' });
    const ana = await makeUser(deps);
    const bo = await makeUser(deps);
    await fund(deps, bo, 500_00);
    const today = deps.clock.now().toISOString().slice(0, 10);
    const open = (await call(app, 'POST', '/v1/fundraisers', { key: ana.key, body: { ein: EIN, title: 'Open', goal: 500 } })).body.id;
    const later = await call(app, 'POST', '/v1/fundraisers', { key: ana.key, body: { ein: EIN, title: 'Later', goal: 500, starts_on: addDays(today, 3) } });
    assert.equal(later.body.status, 'upcoming');

    const sandboxKey = (await call(app, 'POST', '/v1/api_keys', { key: bo.key, body: { name: 'sandbox', mode: 'test' } })).body.key;
    const before = await fingerprint(deps);
    for (const [body, status, code] of [
      [{ ein: OTHER, fundraiser_id: open }, 422, 'fundraiser_other_organisation'],
      [{ ein: EIN, fundraiser_id: later.body.id }, 409, 'fundraiser_not_open'],
      [{ ein: EIN, fundraiser_id: 999_999 }, 404, 'fundraiser_not_found'],
      [{ ein: EIN, fundraiser_id: 0 }, 422, 'validation_failed'],
    ] as const) {
      const r = await call(app, 'POST', '/v1/donations', { key: bo.key, body: { amount: 20, ...body } });
      assert.deepEqual([r.status, r.body.code], [status, code], JSON.stringify(body));
    }
    // The sandbox book does not see the live book's fundraiser, nor give to it.
    const fromSandbox = await call(app, 'GET', `/v1/fundraisers/${open}`, { key: sandboxKey });
    assert.deepEqual([fromSandbox.status, fromSandbox.body.code], [404, 'fundraiser_not_found']);
    const givenFromSandbox = await call(app, 'POST', '/v1/donations', { key: sandboxKey, body: { amount: 20, ein: EIN, fundraiser_id: open } });
    assert.deepEqual([givenFromSandbox.status, givenFromSandbox.body.code], [404, 'fundraiser_not_found']);
    assert.deepEqual(await fingerprint(deps), before);
  });

  test('bad input to open one: the code, the field, and nothing written', async () => {
    const { app, deps } = env();
    await makeNonProfit(deps, { ein: EIN, name: 'Vermont Foodbank' });
    const ana = await makeUser(deps);
    const today = deps.clock.now().toISOString().slice(0, 10);
    assert.equal((await call(app, 'POST', '/v1/fundraisers', { key: ana.key, body: { ein: EIN, title: 'Taken', goal: 10, external_id: 'x' } })).status, 201);
    const base = { ein: EIN, title: 'A run', goal: 100 };
    const before = await fingerprint(deps);
    for (const [change, status, code] of [
      [{ ends_on: '2026-02-30' }, 422, 'validation_failed'],
      [{ starts_on: '2026-13-01' }, 422, 'validation_failed'],
      [{ ends_on: addDays(today, -1) }, 422, 'validation_failed'],
      [{ starts_on: addDays(today, 5), ends_on: addDays(today, 4) }, 422, 'validation_failed'],
      [{ goal: 0 }, 422, 'amount_below_minimum'],
      [{ goal: 10.005 }, 422, 'amount_invalid'],
      [{ offline_amount: -1 }, 422, 'amount_invalid'],
      [{ title: '' }, 422, 'validation_failed'],
      [{ title: '   ' }, 422, 'validation_failed'],
      [{ title: 'x'.repeat(121) }, 422, 'validation_failed'],
      [{ story: 'x'.repeat(5001) }, 422, 'validation_failed'],
      [{ ein: '000000001' }, 404, 'non_profit_not_found'],
      [{ ein: '12' }, 422, 'validation_failed'],
      [{ external_id: 'x'.repeat(256) }, 422, 'validation_failed'],
      [{ external_id: 'x' }, 409, 'external_id_exists'],
      [{ metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }, 422, 'validation_failed'],
      [{ metadata: { ['k'.repeat(41)]: 'v' } }, 422, 'validation_failed'],
      [{ metadata: { k: 'v'.repeat(501) } }, 422, 'validation_failed'],
      [{ metadata: { k: 1 } }, 422, 'validation_failed'],
      [{ surprise: true }, 422, 'unknown_field'],
    ] as const) {
      const r = await call(app, 'POST', '/v1/fundraisers', { key: ana.key, body: { ...base, ...change } });
      assert.deepEqual([r.status, r.body.code], [status, code], JSON.stringify(change).slice(0, 80));
    }
    assert.deepEqual(await fingerprint(deps), before);
  });

  test('almoner check catches a fundraiser showing what its donations do not hold, and a donation naming another organisation’s', async () => {
    const { app, deps } = env();
    await makeNonProfit(deps, { ein: EIN, name: 'Vermont Foodbank' });
    await makeNonProfit(deps, { ein: OTHER, name: 'American Red Cross' });
    const ana = await makeUser(deps);
    const bo = await makeUser(deps);
    await fund(deps, bo, 500_00);
    const id = (await call(app, 'POST', '/v1/fundraisers', { key: ana.key, body: { ein: EIN, title: 'Checked', goal: 500 } })).body.id;
    const given = await call(app, 'POST', '/v1/donations', { key: bo.key, body: { ein: EIN, amount: 20, fundraiser_id: id } });
    const elsewhere = await call(app, 'POST', '/v1/donations', { key: bo.key, body: { ein: OTHER, amount: 20 } });
    await assertLedgerBalanced(deps, 'before tampering');
    const fundraiserCheck = async () => (await runCheck(deps)).find((r) => r.name.startsWith('every fundraiser'))?.failures ?? ['the check did not run'];
    await deps.db.updateTable('donations').set({ amount_cents: 25_00 }).where('id', '=', given.body.id).execute();
    assert.deepEqual(await fundraiserCheck(), [`fundraiser ${id}: shows 2500 cents raised by its donations, the journal says they hold or paid 2000`]);
    await deps.db.updateTable('donations').set({ amount_cents: 20_00 }).where('id', '=', given.body.id).execute();
    await deps.db.updateTable('donations').set({ fundraiser_id: id }).where('id', '=', elsewhere.body.id).execute();
    assert.deepEqual(await fundraiserCheck(), [`donation ${elsewhere.body.id} names fundraiser ${id} of another book or organisation`]);
  });
});
