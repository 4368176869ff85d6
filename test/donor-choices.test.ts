// What the charity learns of a donation (docs/rules.md §17): `share`,
// `designation` and `dedication` on POST /v1/donations and
// /v1/users/:id/donations, answered to the owner only, never in the form
// other users see, and refused with a problem when malformed.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { engines, openEnv, makeUser, fund, makeNonProfit, call, fingerprint, type TestEnv, type TestUser } from './harness.ts';

for (const { name: engine } of engines()) {
  describe(`donor choices on ${engine}`, () => {
    let env: TestEnv;
    let donor: TestUser;
    let other: TestUser;
    before(async () => {
      env = await openEnv(engine);
      await makeNonProfit(env.deps, { ein: '261544963', name: 'Vermont Foodbank' });
      donor = await makeUser(env.deps);
      other = await makeUser(env.deps);
      await fund(env.deps, donor, 1_000_00);
    });
    after(async () => env.close());

    test('given on a donation, answered to its owner in every owner form, to no one else', async () => {
      const choices = { share: 'anonymous', designation: 'School lunches', dedication: 'In memory of Ada, who fed everyone 🍞' };
      const made = await call(env.app, 'POST', '/v1/donations', { key: donor.key, body: { ein: '261544963', amount: 25, ...choices } });
      assert.equal(made.status, 201);
      assert.deepEqual([made.body.share, made.body.designation, made.body.dedication], [choices.share, choices.designation, choices.dedication]);
      const underUser = await call(env.app, 'POST', `/v1/users/${donor.user_id}/donations`, { key: donor.key, body: { ein: '261544963', amount: 10 } });
      assert.deepEqual(
        [underUser.status, 'share' in underUser.body, 'designation' in underUser.body],
        [201, false, false],
        'the default (their name, nothing else) leaves the form as the spec has it',
      );
      assert.equal((await env.deps.db.selectFrom('donations').select('share').where('id', '=', underUser.body.id).executeTakeFirstOrThrow()).share, 'name');
      const own = await call(env.app, 'GET', `/v1/donations/${made.body.id}`, { key: donor.key });
      assert.deepEqual([own.body.share, own.body.designation, own.body.dedication], [choices.share, choices.designation, choices.dedication]);
      const list = await call(env.app, 'GET', '/v1/donations', { key: donor.key });
      const listed = list.body.items.find((d: { id: number }) => d.id === made.body.id);
      assert.deepEqual([listed.share, listed.designation, listed.dedication], [choices.share, choices.designation, choices.dedication]);
      const ownScoped = await call(env.app, 'GET', `/v1/users/${donor.user_id}/donations/${made.body.id}`, { key: donor.key });
      assert.equal(ownScoped.body.designation, choices.designation);
      for (const url of [`/v1/users/${donor.user_id}/donations/${made.body.id}`, `/v1/users/${donor.user_id}/donations`]) {
        const seen = JSON.stringify((await call(env.app, 'GET', url, { key: other.key })).body);
        assert.ok(!seen.includes('School lunches') && !seen.includes('Ada') && !seen.includes('"share"'), `${url} shows others none of it`);
      }
    });

    test('malformed choices are refused with a problem; nothing is written', async () => {
      const before = await fingerprint(env.deps);
      for (const body of [
        { share: 'everything' },
        { share: '' },
        { designation: 'x'.repeat(101) },
        { dedication: 'x'.repeat(201) },
        { designation: 12 },
        { dedication: 'bad\u0000text' },
      ]) {
        const res = await call(env.app, 'POST', '/v1/donations', { key: donor.key, body: { ein: '261544963', amount: 10, ...body } });
        assert.equal(res.status, 422, JSON.stringify(body));
        assert.equal(res.body.code, 'validation_failed', JSON.stringify(body));
      }
      assert.deepEqual(await fingerprint(env.deps), before);
      const longest = await call(env.app, 'POST', '/v1/donations', {
        key: donor.key,
        body: { ein: '261544963', amount: 10, designation: 'x'.repeat(100), dedication: 'y'.repeat(200) },
      });
      assert.equal(longest.status, 201, 'at the limits');
    });
  });
}
