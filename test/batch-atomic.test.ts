// An operator's batch of donation events is all or none (an operator review:
// a kill -9 left 105 of 1,000 approved), and a batch by status says whether
// more remain. On both engines: a batch whose third donation fails in the
// database changes none of them; a batch past its size reports `more`.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { call, engines, fingerprint, fund, makeNonProfit, makeUser, openEnv, type TestEnv } from './harness.ts';
import { createAdminToken } from '../src/modules/admin/index.ts';

for (const { name: engine } of engines()) {
  describe(`operator batches are all or none (${engine})`, () => {
    let env: TestEnv;
    let operator: string;
    before(async () => {
      env = await openEnv(engine);
      await makeNonProfit(env.deps, { ein: '261544963', name: 'Vermont Foodbank' });
      operator = (await createAdminToken(env.deps, 'batch', 'test')).token;
    });
    after(async () => env.close());

    const admin = (body: unknown) => call(env.app, 'POST', '/admin/v1/donations/batch', { headers: { authorization: `Bearer ${operator}` }, body });

    test('a batch whose third donation fails in the database changes none of them', async () => {
      const users = [await makeUser(env.deps), await makeUser(env.deps)];
      const ids: number[] = [];
      for (const [i, u] of [users[0], users[1], users[0], users[1]].entries()) {
        if (i < 2) await fund(env.deps, u as (typeof users)[0], 10_000);
        ids.push((await call(env.app, 'POST', '/v1/donations', { key: (u as (typeof users)[0]).key, body: { ein: '261544963', amount: 10 } })).body.id as number);
      }
      const failing = ids[2] as number;
      // The database refuses the third donation's change, as a lost connection or a kill would stop it half-way.
      if (engine === 'sqlite') {
        await sql
          .raw(`create trigger t_refuse before update on donations when new.id = ${failing} and new.status = 'approved' begin select raise(abort, 'refused by the test'); end`)
          .execute(env.deps.db);
      } else {
        await sql.raw(`create function t_refuse() returns trigger language plpgsql as $$ begin raise exception 'refused by the test'; end $$`).execute(env.deps.db);
        await sql
          .raw(`create trigger t_refuse before update on donations for each row when (new.id = ${failing} and new.status = 'approved') execute function t_refuse()`)
          .execute(env.deps.db);
      }
      try {
        const before = await fingerprint(env.deps);
        const res = await admin({ event: 'approve', ids });
        assert.equal(res.status, 500);
        assert.deepEqual(await fingerprint(env.deps), before, 'none of the four was approved');
      } finally {
        await sql.raw('drop trigger t_refuse' + (engine === 'postgres' ? ' on donations' : '')).execute(env.deps.db);
        if (engine === 'postgres') await sql.raw('drop function t_refuse').execute(env.deps.db);
      }
      const res = await admin({ event: 'approve', ids });
      assert.equal(res.status, 200);
      assert.deepEqual([...res.body.done].sort(), [...ids].sort(), 'all four, once the database takes them');
      assert.equal(res.body.more, false);
    });

    test('by status: `more` says whether donations remain in it; each call is whole', async () => {
      const user = await makeUser(env.deps);
      await fund(env.deps, user, 1_000_000);
      for (let i = 0; i < 3; i++) assert.equal((await call(env.app, 'POST', '/v1/donations', { key: user.key, body: { ein: '261544963', amount: 10 } })).status, 201);
      const approved = await admin({ event: 'approve', status: 'scheduled' });
      assert.equal(approved.status, 200);
      assert.ok(approved.body.done.length >= 3);
      assert.equal(approved.body.more, false, 'none left scheduled');
      const paid = await admin({ event: 'pay', status: 'approved' });
      assert.deepEqual([paid.status, paid.body.more], [200, false]);
      assert.deepEqual((await admin({ event: 'pay', status: 'approved' })).body, { done: [], skipped: [], more: false });
    });
    test("the operator's queue: donations waiting for approval, oldest first, with donor and organisation; paged after an id", async () => {
      const get = (query: string) => call(env.app, 'GET', `/admin/v1/donations${query}`, { headers: { authorization: `Bearer ${operator}` } });
      const donor = await makeUser(env.deps);
      await fund(env.deps, donor, 10_000);
      const ids: number[] = [];
      for (const amount of [10, 11, 12]) ids.push((await call(env.app, 'POST', '/v1/donations', { key: donor.key, body: { ein: '261544963', amount } })).body.id as number);
      const waiting = await get('');
      assert.equal(waiting.status, 200, JSON.stringify(waiting.body));
      const mine = (waiting.body.items as Array<{ id: number; amount: number; ein: string; non_profit: string; user_id: number; screening: string }>).filter((d) =>
        ids.includes(d.id),
      );
      assert.deepEqual(
        mine.map((d) => [d.id, d.amount, d.ein, d.non_profit, d.user_id, d.screening]),
        ids.map((id, i) => [id, 10 + i, '261544963', 'Vermont Foodbank', donor.user_id, 'clear']),
      );
      const after = await get(`?after=${ids[1]}`);
      assert.deepEqual(
        (after.body.items as Array<{ id: number }>).map((d) => d.id),
        [ids[2]],
      );
      assert.deepEqual((await get('?book=test')).body, { items: [], more: false }, 'the sandbox book is its own');
      const bad = await get('?status=lost');
      assert.deepEqual([bad.status, bad.body.code], [400, 'invalid_parameter'], 'a query parameter that is not one');
      assert.equal((await call(env.app, 'GET', '/admin/v1/donations', {})).status, 401, 'operators only');
    });
  });
}
