// A list's first pages are read as lookups (on PostgreSQL pipelined on shared connections, db/pipelined.ts);
// a deep page, whose OFFSET passes over many rows, on a pooled connection of its own, so that it holds
// back no lookup sent behind it. Both answer the same list.
import { dialectOf } from '../src/db/dialect.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, makeUser, fund, makeNonProfit, call, type TestEnv } from './harness.ts';
import { LOOKUP_OFFSET_MAX, getOwnDonation, listOwnDonations, pageReader } from '../src/modules/donations/donations.lists.ts';
import { FreshReads } from '../src/db/fresh-reads.ts';

/** A funded user with one donation to the Vermont Foodbank. */
async function oneDonation({ deps, app }: TestEnv) {
  await makeNonProfit(deps, { ein: '261544963', name: 'Vermont Foodbank' });
  const user = await makeUser(deps);
  await fund(deps, user, 1_000_00);
  const made = await call(app, 'POST', '/v1/donations', { key: user.key, body: { amount: 10, ein: '261544963' } });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  return { user, made };
}

describeEachEngine('where a page of donations is read', (env) => {
  test('the first pages as lookups, a page past LOOKUP_OFFSET_MAX rows on the pool', () => {
    const { deps } = env();
    assert.equal(pageReader(deps, { page: 1, per_page: 25 }), deps.lookups);
    assert.equal(pageReader(deps, { page: 11, per_page: 100 }), deps.lookups, `offset ${LOOKUP_OFFSET_MAX}`);
    assert.equal(pageReader(deps, { page: 12, per_page: 100 }), deps.db, `offset ${LOOKUP_OFFSET_MAX + 100}`);
    if (dialectOf(deps.db).engine === 'postgres') assert.notEqual(deps.lookups, deps.db, 'on PostgreSQL the lookups have connections of their own');
  });

  test('a deep page answers from the same list as the first', async () => {
    const { deps, app } = env();
    await makeNonProfit(deps, { ein: '261544963', name: 'Vermont Foodbank' });
    const user = await makeUser(deps);
    await fund(deps, user, 1_000_00);
    for (let i = 0; i < 3; i++) {
      const made = await call(app, 'POST', '/v1/donations', { key: user.key, body: { amount: 10, ein: '261544963' } });
      assert.equal(made.status, 201, JSON.stringify(made.body));
    }
    const first = await call(app, 'GET', '/v1/donations?page=1&per_page=2', { key: user.key });
    assert.equal(first.status, 200);
    assert.equal(first.body.items.length, 2);
    assert.equal(first.body.meta.count, 3);
    const deep = await call(app, 'GET', '/v1/donations?page=20&per_page=100', { key: user.key });
    assert.equal(deep.status, 200, JSON.stringify(deep.body));
    assert.deepEqual(deep.body.items, []);
    assert.equal(deep.body.meta.count, 3);
  });

  test("a page's records epoch is read beside its statements: on PostgreSQL asked before they are answered", async () => {
    const { deps } = env();
    const { user } = await oneDonation(env());
    // What happens, in order: the epoch's read begun, the page's keys answered (the kept rows asked for them).
    const order: string[] = [];
    const { cards, donationRows } = deps.runtime;
    const epoch = cards.epoch;
    const get = donationRows.get.bind(donationRows);
    cards.epoch = new FreshReads(() => {
      order.push('epoch');
      return epoch.get();
    });
    donationRows.get = (id, revision) => {
      if (!order.includes('keys')) order.push('keys');
      return get(id, revision);
    };
    try {
      const page = await listOwnDonations(deps, user.caller, { page: 1, per_page: 25 });
      assert.equal(page.items.length, 1);
      // SQLite answers a statement as it is made, within the turn; PostgreSQL's answers arrive in a
      // later one, and the epoch's statement has left with the page's by then (one wait, not two).
      assert.deepEqual(order, dialectOf(deps.db).engine === 'postgres' ? ['epoch', 'keys'] : ['keys', 'epoch']);
    } finally {
      cards.epoch = epoch;
      donationRows.get = get;
    }
  });

  test("a single donation's records epoch is asked for before its row's first statement", async () => {
    const { deps } = env();
    const { user, made } = await oneDonation(env());
    // What is asked for, in order: the records epoch, and the row's statements as they are made.
    const order: string[] = [];
    const { cards } = deps.runtime;
    const epoch = cards.epoch;
    const get = epoch.get.bind(epoch);
    epoch.get = () => {
      order.push('epoch');
      return get();
    };
    const db = new Proxy(deps.db, {
      get(target, property) {
        if (property === 'executeQuery') {
          return (...args: Parameters<typeof target.executeQuery>) => {
            order.push('row');
            return target.executeQuery(...args);
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    try {
      const donation = await getOwnDonation({ ...deps, db }, user.caller, Number(made.body.id));
      assert.equal(donation.id, Number(made.body.id));
      assert.equal(donation.non_profit.name, 'Vermont Foodbank');
      // Asked for before the row's first statement: on PostgreSQL the two run at once (one wait, not two).
      assert.equal(order[0], 'epoch', order.join(', '));
      assert.ok(order.includes('row'));
    } finally {
      epoch.get = get;
    }
  });
});
