// Matching (docs/rules.md §22), on both engines: a 2:1 match capped at $495 is held from its
// matcher's fund at once; 30 donations, many at the same moment, are matched in the order they
// are written until exactly the cap (the last one in part), each by the matcher's own donation in
// the same transaction; a matched donation is given for good; a match that gives what is left
// when its fundraiser ends gives it. Bad pledges are refused and write nothing; almoner check holds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertLedgerBalanced, call, describeEachEngine, fingerprint, fund, makeNonProfit, makeUser } from './harness.ts';
import { runScheduler } from '../src/modules/scheduled/index.ts';

const EIN = '261544963';

describeEachEngine('matching', (env) => {
  test('a 2:1 match up to its cap: held up front, given donation by donation, never past the cap', async () => {
    const { app, deps } = env();
    await makeNonProfit(deps, { ein: EIN, name: 'Vermont Foodbank' });
    const ana = await makeUser(deps, { name: 'Ana Organiser' });
    const max = await makeUser(deps, { name: 'Max Matcher' });
    const givers = await Promise.all(Array.from({ length: 6 }, () => makeUser(deps)));
    await fund(deps, max, 1_000_00);
    for (const g of givers) await fund(deps, g, 100_00);
    const id = (await call(app, 'POST', '/v1/fundraisers', { key: ana.key, body: { ein: EIN, title: 'Matched run', goal: 2000 } })).body.id;

    const pledged = await call(app, 'POST', `/v1/fundraisers/${id}/matches`, { key: max.key, body: { ratio: 2, cap: 495 } });
    assert.equal(pledged.status, 201, JSON.stringify(pledged.body));
    assert.deepEqual([pledged.body.ratio, pledged.body.cap, pledged.body.matched, pledged.body.remaining, pledged.body.status], [2, 495, 0, 495, 'live']);
    const balance = async () => (await call(app, 'GET', '/v1/users/me/balance', { key: max.key })).body;
    assert.deepEqual([(await balance()).available_balance, (await balance()).amount], [505, 1000], 'the cap is held at once, still in the fund');

    // 30 donations of $10, six at a time: 24 matched in full ($480), one in part ($15), five not at all.
    const made: Array<{ status: number; body: { id: number } }> = [];
    for (let round = 0; round < 5; round++) {
      made.push(...(await Promise.all(givers.map((g) => call(app, 'POST', '/v1/donations', { key: g.key, body: { ein: EIN, amount: 10, fundraiser_id: id } })))));
    }
    assert.ok(made.every((r) => r.status === 201));
    const byMatch = await deps.db
      .selectFrom('donations')
      .select(['amount_cents', 'matched_donation_id', 'user_id', 'status'])
      .where('match_id', '=', pledged.body.id)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      byMatch.map((d) => d.amount_cents),
      [...Array.from({ length: 24 }, () => 20_00), 15_00],
      'matched in order, the last one in part',
    );
    assert.ok(byMatch.every((d) => d.user_id === max.user_id && d.status === 'scheduled'));
    assert.equal(new Set(byMatch.map((d) => d.matched_donation_id)).size, 25, 'each matches one donation');

    const after = (await call(app, 'GET', `/v1/matches/${pledged.body.id}`, { key: max.key })).body;
    assert.deepEqual([after.matched, after.remaining], [495, 0]);
    assert.deepEqual([(await balance()).available_balance, (await balance()).amount], [505, 1000], 'its donations hold what the cap held');
    const page = (await call(app, 'GET', `/v1/fundraisers/${id}`, { key: givers[0]?.key ?? '' })).body;
    assert.deepEqual([page.raised, page.donations, page.matching], [795, 55, { matched: 495, remaining: 0, matchers: 1 }]);

    // A matched donation is given for good; one past the cap is its giver's to withdraw.
    const matchedOne = byMatch[0]?.matched_donation_id;
    const refusedCancel = await call(app, 'DELETE', `/v1/donations/${matchedOne}`, { key: (await keyOf(matchedOne as number)) ?? '' });
    assert.deepEqual([refusedCancel.status, refusedCancel.body.code], [409, 'donation_matched']);
    const matchedIds = new Set(byMatch.map((d) => d.matched_donation_id));
    const unmatched = made.find((r) => !matchedIds.has(r.body.id));
    assert.ok(unmatched !== undefined);
    assert.equal((await call(app, 'DELETE', `/v1/donations/${unmatched.body.id}`, { key: (await keyOf(unmatched.body.id)) ?? '' })).status, 200);
    await assertLedgerBalanced(deps, 'the match reached its cap');

    async function keyOf(donationId: number): Promise<string | undefined> {
      const row = await deps.db.selectFrom('donations').select('user_id').where('id', '=', donationId).executeTakeFirstOrThrow();
      return givers.find((g) => g.user_id === row.user_id)?.key;
    }
  });

  test('what is left is given when the fundraiser ends (give_rest), or goes back; a match is its matcher’s to end', async () => {
    const { app, deps } = env();
    await makeNonProfit(deps, { ein: EIN, name: 'Vermont Foodbank' });
    const ana = await makeUser(deps);
    const [gen, keep, giver] = [await makeUser(deps), await makeUser(deps), await makeUser(deps)];
    for (const u of [gen, keep, giver]) await fund(deps, u, 200_00);
    const id = (await call(app, 'POST', '/v1/fundraisers', { key: ana.key, body: { ein: EIN, title: 'Ends', goal: 100 } })).body.id;
    const generous = (await call(app, 'POST', `/v1/fundraisers/${id}/matches`, { key: gen.key, body: { ratio: 1, cap: 100, per_donation_cap: 5, give_rest: true } })).body;
    const keeper = (await call(app, 'POST', `/v1/fundraisers/${id}/matches`, { key: keep.key, body: { ratio: 1, cap: 50 } })).body;
    // A matcher's own donation is not matched by their own match; the other one matches it.
    assert.equal((await call(app, 'POST', '/v1/donations', { key: gen.key, body: { ein: EIN, amount: 10, fundraiser_id: id } })).status, 201);
    assert.equal((await call(app, 'POST', '/v1/donations', { key: giver.key, body: { ein: EIN, amount: 10, fundraiser_id: id } })).status, 201);
    const mine = (await call(app, 'GET', `/v1/matches/${generous.id}`, { key: gen.key })).body;
    assert.deepEqual([mine.matched, mine.remaining], [5, 95], 'the per-donation cap');
    assert.deepEqual((await call(app, 'GET', `/v1/matches/${keeper.id}`, { key: keep.key })).body.matched, 20, '10 for each of the two');

    // Not another's to end.
    let before = await fingerprint(deps);
    const theirs = await call(app, 'POST', `/v1/matches/${generous.id}/end`, { key: keep.key });
    assert.deepEqual([theirs.status, theirs.body.code], [404, 'match_not_found']);
    assert.deepEqual(await fingerprint(deps), before);

    // The fundraiser ends: the generous match gives its $95, the keeper's $30 goes back.
    assert.equal((await call(app, 'POST', `/v1/fundraisers/${id}/end`, { key: ana.key })).status, 200);
    const [g, k] = [(await call(app, 'GET', `/v1/matches/${generous.id}`, { key: gen.key })).body, (await call(app, 'GET', `/v1/matches/${keeper.id}`, { key: keep.key })).body];
    assert.deepEqual([g.status, g.remaining, k.status, k.remaining], ['ended', 0, 'ended', 0]);
    const rest = await deps.db.selectFrom('donations').select(['amount_cents', 'status']).where('match_id', '=', generous.id).where('matched_donation_id', 'is', null).execute();
    assert.deepEqual(rest, [{ amount_cents: 95_00, status: 'scheduled' }]);
    assert.equal((await call(app, 'GET', '/v1/users/me/balance', { key: keep.key })).body.available_balance, 180, 'the rest went back');
    before = await fingerprint(deps);
    const again = await call(app, 'POST', `/v1/matches/${keeper.id}/end`, { key: keep.key });
    assert.deepEqual([again.status, again.body.code], [409, 'match_ended']);
    assert.deepEqual(await fingerprint(deps), before);
    await assertLedgerBalanced(deps, 'matches ended');
  });

  test('a recurring donation naming a fundraiser: each payment while it is open is given to it, only the first is matched', async () => {
    const { app, deps } = env();
    await makeNonProfit(deps, { ein: EIN, name: 'Vermont Foodbank' });
    const [ana, matcher, monthly] = [await makeUser(deps), await makeUser(deps), await makeUser(deps)];
    await fund(deps, matcher, 100_00);
    await fund(deps, monthly, 100_00);
    const id = (await call(app, 'POST', '/v1/fundraisers', { key: ana.key, body: { ein: EIN, title: 'Every month', goal: 500 } })).body.id;
    const match = (await call(app, 'POST', `/v1/fundraisers/${id}/matches`, { key: matcher.key, body: { ratio: 2, cap: 100 } })).body;
    const made = await call(app, 'POST', '/v1/scheduled_donations', { key: monthly.key, body: { ein: EIN, amount: 15, frequency: 'Monthly', fundraiser_id: id } });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.fundraiser_id, id);
    const day = (months: number) => {
      const d = new Date(deps.clock.now());
      d.setUTCMonth(d.getUTCMonth() + months);
      return d.toISOString().slice(0, 10);
    };
    const payments = async () =>
      (await deps.db.selectFrom('donations').select(['id', 'fundraiser_id', 'status']).where('scheduled_donation_id', '=', made.body.id).orderBy('id').execute()).map((d) => [
        d.fundraiser_id,
        d.status,
      ]);
    const matched = async () => (await call(app, 'GET', `/v1/matches/${match.id}`, { key: matcher.key })).body.matched;
    assert.equal((await runScheduler(deps, day(0))).created, 1);
    assert.deepEqual(await payments(), [[id, 'scheduled']]);
    assert.equal(await matched(), 30, 'the first payment is matched 2:1');
    assert.equal((await runScheduler(deps, day(1))).created, 1);
    assert.deepEqual(await payments(), [
      [id, 'scheduled'],
      [id, 'scheduled'],
    ]);
    assert.equal(await matched(), 30, 'the second is given to the fundraiser, not matched');
    assert.equal((await call(app, 'GET', `/v1/fundraisers/${id}`, { key: ana.key })).body.raised, 60, 'both payments and the match count');
    // Ended, the fundraiser is given no more payments: the next goes to the organisation alone.
    assert.equal((await call(app, 'POST', `/v1/fundraisers/${id}/end`, { key: ana.key })).status, 200);
    assert.equal((await runScheduler(deps, day(2))).created, 1);
    assert.deepEqual((await payments())[2], [null, 'scheduled']);
    await assertLedgerBalanced(deps, 'recurring payments to a fundraiser');

    // A recurring donation names only a fundraiser it could give to today, as a donation does.
    const other = (await call(app, 'POST', '/v1/fundraisers', { key: ana.key, body: { ein: EIN, title: 'Later', goal: 100, starts_on: day(1) } })).body.id;
    for (const [label, body, status, code] of [
      ['ended', { fundraiser_id: id }, 409, 'fundraiser_not_open'],
      ['not started', { fundraiser_id: other }, 409, 'fundraiser_not_open'],
      ['unknown', { fundraiser_id: 987_654 }, 404, 'fundraiser_not_found'],
    ] as const) {
      const before = await fingerprint(deps);
      const refused = await call(app, 'POST', '/v1/scheduled_donations', { key: monthly.key, body: { ein: EIN, amount: 15, frequency: 'Monthly', ...body } });
      assert.deepEqual([refused.status, refused.body.code], [status, code], label);
      assert.deepEqual(await fingerprint(deps), before, `${label}: nothing written`);
    }
  });

  test('bad pledges: the code, and nothing written', async () => {
    const { app, deps } = env();
    await makeNonProfit(deps, { ein: EIN, name: 'Vermont Foodbank' });
    const ana = await makeUser(deps);
    const max = await makeUser(deps);
    await fund(deps, max, 100_00);
    const id = (await call(app, 'POST', '/v1/fundraisers', { key: ana.key, body: { ein: EIN, title: 'Bad', goal: 100 } })).body.id;
    const ended = (await call(app, 'POST', '/v1/fundraisers', { key: ana.key, body: { ein: EIN, title: 'Over', goal: 100 } })).body.id;
    await call(app, 'POST', `/v1/fundraisers/${ended}/end`, { key: ana.key });
    const before = await fingerprint(deps);
    for (const [url, body, status, code] of [
      [id, { ratio: 0, cap: 10 }, 422, 'validation_failed'],
      [id, { ratio: 1.5, cap: 10 }, 422, 'validation_failed'],
      [id, { ratio: 1, cap: -5 }, 422, 'amount_invalid'],
      [id, { ratio: 1, cap: 100.01 }, 422, 'insufficient_funds'],
      [id, { ratio: 1, cap: 10, per_donation_cap: 11 }, 422, 'validation_failed'],
      [id, { ratio: 1 }, 422, 'validation_failed'],
      [ended, { ratio: 1, cap: 10 }, 409, 'fundraiser_not_open'],
      [999_999, { ratio: 1, cap: 10 }, 404, 'fundraiser_not_found'],
    ] as const) {
      const r = await call(app, 'POST', `/v1/fundraisers/${url}/matches`, { key: max.key, body });
      assert.deepEqual([r.status, r.body.code], [status, code], JSON.stringify(body));
    }
    assert.deepEqual(await fingerprint(deps), before);
  });
});
