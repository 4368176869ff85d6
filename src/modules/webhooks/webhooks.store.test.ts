// Every function of webhooks.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, makeNonProfit, makeUser } from '../../../test/harness.ts';
import * as store from './webhooks.store.ts';

const AT = '2026-02-01T00:00:00.000Z';
const endpointRow = (userId: number, url: string) => ({
  book: 'live' as const,
  user_id: userId,
  url,
  secret: 'whsec_a',
  disabled_reason: null,
  previous_secret: null,
  previous_secret_until: null,
  failing_since: null,
  created_at: AT,
  updated_at: AT,
  deleted_at: null,
});

describeEachEngine('webhooks store', (env) => {
  test('insertEndpoint, findEndpoint (its owner and book only), endpointById, pageOfEndpoints, updateEndpoint, endpointsOfUsers, endpointHealth', async () => {
    const { db } = env().deps;
    const [user, other] = [await makeUser(env().deps), await makeUser(env().deps)];
    const a = await store.insertEndpoint(db, endpointRow(user.user_id, 'https://a.example.org/h'));
    const b = await store.insertEndpoint(db, { ...endpointRow(user.user_id, 'https://b.example.org/h'), event_types: '["gift.created"]' });
    assert.equal((await store.findEndpoint(db, 'live', user.user_id, a))?.url, 'https://a.example.org/h');
    assert.equal(await store.findEndpoint(db, 'live', other.user_id, a), undefined);
    assert.equal(await store.findEndpoint(db, 'test', user.user_id, a), undefined);
    assert.equal((await store.endpointById(db, b))?.event_types, '["gift.created"]');
    const page = await store.pageOfEndpoints(db, 'live', user.user_id, { page: 1, per_page: 1 });
    assert.deepEqual([page.count, page.rows.map((r) => r.id)], [2, [b]]);
    await store.updateEndpoint(db, b, { disabled: 1, disabled_reason: 'tired' });
    assert.deepEqual(
      (await store.endpointsOfUsers(db, [user.user_id, other.user_id])).map((e) => e.id),
      [a],
      'enabled ones only',
    );
    assert.deepEqual(await store.endpointsOfUsers(db, []), []);
    await store.updateEndpoint(db, a, { failing_since: AT });
    const health = (await store.endpointHealth(db)).filter((e) => e.user_id === user.user_id);
    assert.deepEqual(
      health.map((e) => [e.id, e.disabled, e.failing_since]),
      [
        [a, 0, AT],
        [b, 1, null],
      ],
    );
  });

  test('insertDeliveries once per endpoint and event; claimDueDeliveries leases; insertAttempts, settleDelivery, settleDelivered, pageOfAttempts, deliveryCounts; deleteEndpoint drops what waits; eventsSince', async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps);
    const e = await store.insertEndpoint(db, endpointRow(user.user_id, 'https://c.example.org/h'));
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('events').values({ user_id: user.user_id, type: 'gift.created', object_type: 'gift', object_id: 1, data: '{"status":"new"}', created_at: AT }).execute();
    });
    const [event] = await store.eventsSince(db, user.user_id, AT);
    assert.deepEqual([event?.type, event?.object_id], ['gift.created', 1]);
    assert.deepEqual(await store.eventsSince(db, user.user_id, '2026-03-01T00:00:00Z'), []);
    const delivery = {
      endpoint_id: e,
      event_id: event?.id ?? 0,
      message_id: `evt_${event?.id}`,
      type: 'gift.created',
      payload: '{}',
      status: 'pending',
      next_at: AT,
      created_at: AT,
    };
    await db.transaction().execute(async (trx) => {
      await store.insertDeliveries(trx, [delivery]);
      await store.insertDeliveries(trx, [delivery]);
      await store.insertDeliveries(trx, [{ ...delivery, event_id: null, message_id: 'msg_test_1', type: 'webhook.test', next_at: '2026-02-02T00:00:00Z' }]);
    });
    const claimed = await store.claimDueDeliveries(db, '2026-02-01T00:00:01Z', '2026-02-01T00:01:00Z', 10, 10);
    assert.deepEqual(
      claimed.map((d) => d.message_id),
      [`evt_${event?.id}`],
      'once, and only what is due',
    );
    assert.deepEqual(await store.claimDueDeliveries(db, '2026-02-01T00:00:02Z', '2026-02-01T00:01:00Z', 10, 10), [], 'leased');
    await store.releaseClaims(db, [claimed[0]?.id ?? 0]);
    await store.releaseClaims(db, []);
    assert.equal((await store.claimDueDeliveries(db, '2026-02-01T00:00:02Z', '2026-02-01T00:01:00Z', 10, 10)).length, 1, 'released: claimable again at once');
    const [d] = claimed;
    await db.transaction().execute(async (trx) => {
      await store.insertAttempts(trx, [{ delivery_id: d?.id ?? 0, endpoint_id: e, at: AT, status_code: 500, duration_ms: 12, error: 'answered 500', succeeded: 0 }]);
      await store.insertAttempts(trx, []);
      await store.settleDelivery(trx, d?.id ?? 0, { status: 'pending', attempts: 1, next_at: '2026-02-01T00:05:00Z' });
    });
    const attempts = await store.pageOfAttempts(db, e, { page: 1, per_page: 10 });
    assert.deepEqual([attempts.count, attempts.rows[0]?.status_code, attempts.rows[0]?.attempts, attempts.rows[0]?.delivery_status], [1, 500, 1, 'pending']);
    assert.deepEqual(await store.deliveryCounts(db, '2026-02-03T00:00:00Z'), { pending: 2, due: 2, failed: 0, succeeded: 0 });
    const [test] = await store.claimDueDeliveries(db, '2026-02-03T00:00:00Z', '2026-02-03T00:01:00Z', 1, 10);
    await db.transaction().execute(async (trx) => {
      await store.settleDelivered(trx, [test?.id ?? 0], '2026-02-03T00:00:01Z');
      await store.settleDelivered(trx, [], '2026-02-03T00:00:01Z');
    });
    const settled = await db
      .selectFrom('webhook_deliveries')
      .select(['status', 'attempts', 'delivered_at', 'claimed_until'])
      .where('id', '=', test?.id ?? 0)
      .executeTakeFirstOrThrow();
    assert.deepEqual(settled, { status: 'succeeded', attempts: (test?.attempts ?? 0) + 1, delivered_at: '2026-02-03T00:00:01Z', claimed_until: null });
    await db.transaction().execute((trx) => store.deleteEndpoint(trx, e, AT));
    assert.equal(await store.findEndpoint(db, 'live', user.user_id, e), undefined);
    assert.deepEqual(await store.deliveryCounts(db, '2026-02-03T00:00:00Z'), { pending: 0, due: 0, failed: 1, succeeded: 1 });
  });

  test('claimDueDeliveries by eight claimers at once over one backlog: no delivery is claimed twice while its lease runs', async () => {
    const { db } = env().deps;
    const owners = await Promise.all(Array.from({ length: 6 }, () => makeUser(env().deps)));
    const endpoints = await Promise.all(owners.map((o, i) => store.insertEndpoint(db, endpointRow(o.user_id, `https://race${i}.example.org/h`))));
    const at = '2026-05-01T00:00:00Z';
    await db.transaction().execute((trx) =>
      store.insertDeliveries(
        trx,
        Array.from({ length: 480 }, (_, i) => ({
          endpoint_id: endpoints[i % endpoints.length] ?? 0,
          event_id: null,
          message_id: `msg_race_${i}`,
          type: 'webhook.test',
          payload: '{}',
          status: 'pending',
          next_at: at,
          created_at: at,
        })),
      ),
    );
    const taken: number[] = [];
    const claimer = async () => {
      for (;;) {
        const claimed = await store.claimDueDeliveries(db, '2026-05-01T00:00:01Z', '2026-05-01T01:00:00Z', 4, 1);
        if (claimed.length === 0) return;
        taken.push(...claimed.map((d) => d.id));
      }
    };
    await Promise.all(Array.from({ length: 8 }, claimer));
    assert.equal(taken.length, 480, 'each of the 480 claimed once, none twice');
    assert.equal(new Set(taken).size, 480);
  });

  test("an app's endpoints (rules §25): appForEndpoint, endpointsOfApps (and not endpointsOfUsers), appEventsSince; findEndpoint names the app", async () => {
    const { db } = env().deps;
    const developer = await makeUser(env().deps);
    const appId = Number(
      (
        await db
          .insertInto('apps')
          .values({
            client_id: 'app_STOREtestSTOREtestSTORE',
            owner_id: developer.user_id,
            book: 'live',
            name: 'Store app',
            redirect_uris: '[]',
            logo_uri: null,
            secret_hash: 'x',
            created_at: AT,
            disabled_at: null,
            disabled_reason: null,
            deleted_at: null,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    );
    assert.deepEqual(await store.appForEndpoint(db, 'app_STOREtestSTOREtestSTORE'), { id: appId, owner_id: developer.user_id, book: 'live', deleted_at: null });
    assert.equal(await store.appForEndpoint(db, 'app_nobodynobodynobodynobod'), undefined);
    const ofApp = await store.insertEndpoint(db, { ...endpointRow(developer.user_id, 'https://app.example.org/h'), app_id: appId });
    const ofFund = await store.insertEndpoint(db, endpointRow(developer.user_id, 'https://fund.example.org/h'));
    assert.deepEqual(
      (await store.endpointsOfApps(db, [appId, 999_999])).map((e) => [e.id, e.app_id]),
      [[ofApp, appId]],
    );
    assert.deepEqual(await store.endpointsOfApps(db, []), []);
    assert.deepEqual(
      (await store.endpointsOfUsers(db, [developer.user_id])).map((e) => e.id),
      [ofFund],
      "a user's endpoints are their fund's, not their app's",
    );
    assert.equal((await store.findEndpoint(db, 'live', developer.user_id, ofApp))?.app_client_id, 'app_STOREtestSTOREtestSTORE');
    assert.equal((await store.findEndpoint(db, 'live', developer.user_id, ofFund))?.app_client_id, null);
    await makeNonProfit(env().deps, { ein: '333333339', name: 'Store Charity' });
    const np = await db.selectFrom('non_profits').select('id').where('ein', '=', '333333339').executeTakeFirstOrThrow();
    const [donation] = await db
      .insertInto('donations')
      .values({
        book: 'live',
        user_id: developer.user_id,
        fund_id: developer.fund_id,
        non_profit_id: np.id,
        amount_cents: 1_000,
        status: 'scheduled',
        visibility: 'public',
        created_at: AT,
        updated_at: AT,
        app_id: appId,
      })
      .returning('id')
      .execute();
    await db
      .insertInto('events')
      .values({ user_id: developer.user_id, type: 'donation.created', object_type: 'donation', object_id: Number(donation?.id), data: '{"status":"scheduled"}', created_at: AT })
      .execute();
    assert.deepEqual(
      (await store.appEventsSince(db, appId, AT)).map((e) => [e.type, e.object_id]),
      [['donation.created', Number(donation?.id)]],
    );
    assert.deepEqual(await store.appEventsSince(db, 999_999, AT), []);
  });

  test("claimDueDeliveries is fair between owners: at most perOwner of each, every owner's first before anyone's second; lockOwner, liveEndpointCount", async () => {
    const { db } = env().deps;
    const busy = await makeUser(env().deps);
    const quiet = await makeUser(env().deps);
    const busyEndpoint = await store.insertEndpoint(db, endpointRow(busy.user_id, 'https://busy.example.org/h'));
    const quietEndpoint = await store.insertEndpoint(db, endpointRow(quiet.user_id, 'https://quiet.example.org/h'));
    const row = (endpoint: number, i: number, at: string) => ({
      endpoint_id: endpoint,
      event_id: null,
      message_id: `msg_fair_${endpoint}_${i}`,
      type: 'webhook.test',
      payload: '{}',
      status: 'pending',
      next_at: at,
      created_at: at,
    });
    await db.transaction().execute(async (trx) => {
      // The busy owner's ten are older than the quiet owner's one.
      await store.insertDeliveries(
        trx,
        Array.from({ length: 10 }, (_, i) => row(busyEndpoint, i, `2026-04-01T00:00:0${i}Z`)),
      );
      await store.insertDeliveries(trx, [row(quietEndpoint, 0, '2026-04-01T00:01:00Z')]);
    });
    const claimed = await store.claimDueDeliveries(db, '2026-04-01T00:02:00Z', '2026-04-01T00:03:00Z', 3, 2);
    assert.deepEqual(
      claimed.map((d) => [d.owner_id, d.message_id]),
      [
        [busy.user_id, `msg_fair_${busyEndpoint}_0`],
        [busy.user_id, `msg_fair_${busyEndpoint}_1`],
        [quiet.user_id, `msg_fair_${quietEndpoint}_0`],
      ].sort((a, b) => String(a[1]).localeCompare(String(b[1]))),
      "the quiet owner's one is in the claim though the busy owner's ten are older",
    );
    assert.deepEqual(new Set(claimed.map((d) => d.message_id)).has(`msg_fair_${quietEndpoint}_0`), true);
    const later = '2026-04-01T00:10:00Z';
    assert.deepEqual(
      (await store.claimDueDeliveries(db, later, '2026-04-01T00:11:00Z', 50, 50, { endpoints: [busyEndpoint], owners: [] })).map((d) => d.owner_id),
      [quiet.user_id],
      "skipping the endpoint this node sends already: only the quiet owner's (its first lease has ended)",
    );
    assert.equal(
      (await store.claimDueDeliveries(db, later, '2026-04-01T00:11:00Z', 50, 50, { endpoints: [], owners: [busy.user_id] })).length,
      0,
      'skipping an owner at their cap',
    );
    assert.equal((await store.claimDueDeliveries(db, later, '2026-04-01T00:11:00Z', 50, 50)).length, 10, "the busy owner's ten (the first two's lease has ended)");
    assert.equal(await store.liveEndpointCount(db, busy.user_id), 1);
    await db.transaction().execute((trx) => store.lockOwner(trx, busy.user_id));
  });

  test('endpointsMadeBy: the endpoints not deleted that the makers made for the holders', async () => {
    const { db } = env().deps;
    const [holder, member, other] = [await makeUser(env().deps), await makeUser(env().deps), await makeUser(env().deps)];
    const made = await db
      .transaction()
      .execute(async (trx) => [
        await store.insertEndpoint(trx, { ...endpointRow(holder.user_id, 'https://a.example.org/'), created_by: member.user_id }),
        await store.insertEndpoint(trx, { ...endpointRow(holder.user_id, 'https://b.example.org/'), created_by: holder.user_id }),
        await store.insertEndpoint(trx, { ...endpointRow(other.user_id, 'https://c.example.org/'), created_by: member.user_id }),
        await store.insertEndpoint(trx, { ...endpointRow(holder.user_id, 'https://d.example.org/'), created_by: member.user_id, deleted_at: AT }),
      ]);
    assert.deepEqual(await db.transaction().execute((trx) => store.endpointsMadeBy(trx, [holder.user_id], [member.user_id])), [made[0]]);
    assert.deepEqual(await db.transaction().execute((trx) => store.endpointsMadeBy(trx, [holder.user_id], [])), []);
  });
});
