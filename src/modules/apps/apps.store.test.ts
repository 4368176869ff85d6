// Every function of apps.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, makeUser } from '../../../test/harness.ts';
import { sandboxUserFor } from '../users/index.ts';
import * as store from './apps.store.ts';

describeEachEngine('apps store', (env) => {
  let seq = 0;
  const newApp = async (ownerId: number, book: 'live' | 'test' = 'live') => {
    seq += 1;
    return store.insertApp(env().deps.db, {
      client_id: `app_${String(seq).padStart(24, '0')}`,
      owner_id: ownerId,
      book,
      name: `App ${seq}`,
      redirect_uris: JSON.stringify(['https://app.example.org/cb']),
      logo_uri: null,
      secret_hash: 'f'.repeat(64),
      created_at: '2026-01-01T00:00:00Z',
    });
  };
  const connect = async (appId: number, userId: number, limit: number | null = null) =>
    env()
      .deps.db.transaction()
      .execute((trx) =>
        store.insertConnection(trx, {
          app_id: appId,
          user_id: userId,
          scopes: 'openid read',
          grant_id: `grant-${appId}-${userId}`,
          monthly_limit_cents: limit,
          created_at: '2026-01-01T00:00:00Z',
          updated_at: '2026-01-01T00:00:00Z',
        }),
      );

  test('insertApp, findApp, appsOfOwner (newest first), listApps (with connections, paged), setAppDisabled (once each way)', async () => {
    const { db } = env().deps;
    const owner = await makeUser(env().deps);
    const donor = await makeUser(env().deps);
    const a = await newApp(owner.user_id);
    const b = await newApp(owner.user_id);
    assert.equal((await store.findApp(db, a.client_id))?.id, a.id);
    assert.equal(await store.findApp(db, 'app_none'), undefined);
    assert.deepEqual(
      (await store.appsOfOwner(db, owner.user_id)).map((x) => x.id),
      [b.id, a.id],
    );
    await connect(a.id, donor.user_id);
    const listed = await store.listApps(db, 100, undefined);
    assert.equal(Number(listed.find((x) => x.id === a.id)?.connections), 1);
    assert.equal(listed.find((x) => x.id === a.id)?.owner_slug, owner.slug);
    assert.deepEqual(
      (await store.listApps(db, 1, b.id)).map((x) => x.id),
      [a.id],
    );
    assert.equal(await store.setAppDisabled(db, a.client_id, '2026-01-02T00:00:00Z', 'abuse'), true);
    assert.equal(await store.setAppDisabled(db, a.client_id, '2026-01-02T00:00:00Z', 'abuse'), false, 'already disabled');
    assert.equal((await store.findApp(db, a.client_id))?.disabled_reason, 'abuse');
    assert.equal(await store.setAppDisabled(db, a.client_id, null, null), true);
    assert.equal(await store.setAppDisabled(db, a.client_id, null, null), false, 'already enabled');
  });

  test("replaceSecret (only the owner's active app), markDeleted (once, keeping an operator's reason), endConnectionsOfApp", async () => {
    const { db } = env().deps;
    const owner = await makeUser(env().deps);
    const stranger = await makeUser(env().deps);
    const donor = await makeUser(env().deps);
    const a = await newApp(owner.user_id);
    const b = await newApp(owner.user_id);
    assert.equal(await store.replaceSecret(db, a.client_id, stranger.user_id, 'a'.repeat(64)), false, "not another user's app");
    assert.equal(await store.replaceSecret(db, a.client_id, owner.user_id, 'a'.repeat(64)), true);
    assert.equal((await store.findApp(db, a.client_id))?.secret_hash, 'a'.repeat(64));
    await store.setAppDisabled(db, b.client_id, '2026-01-02T00:00:00Z', 'abuse');
    assert.equal(await store.replaceSecret(db, b.client_id, owner.user_id, 'b'.repeat(64)), false, 'not a disabled app');

    await connect(a.id, donor.user_id);
    await connect(a.id, stranger.user_id);
    const deleted = await db.transaction().execute(async (trx) => {
      assert.equal(await store.markDeleted(trx, a.client_id, stranger.user_id, '2026-01-03T00:00:00Z'), undefined, "not another user's app");
      const id = await store.markDeleted(trx, a.client_id, owner.user_id, '2026-01-03T00:00:00Z');
      assert.equal(await store.markDeleted(trx, a.client_id, owner.user_id, '2026-01-04T00:00:00Z'), undefined, 'once');
      return { id, grants: await store.endConnectionsOfApp(trx, a.id, '2026-01-03T00:00:00Z'), again: await store.endConnectionsOfApp(trx, a.id, '2026-01-03T00:00:00Z') };
    });
    assert.equal(deleted.id, a.id);
    assert.deepEqual(deleted.grants.sort(), [`grant-${a.id}-${donor.user_id}`, `grant-${a.id}-${stranger.user_id}`].sort());
    assert.deepEqual(deleted.again, []);
    const row = await store.findApp(db, a.client_id);
    assert.deepEqual([row?.deleted_at, row?.disabled_at, row?.disabled_reason], ['2026-01-03T00:00:00Z', '2026-01-03T00:00:00Z', 'deleted by its owner']);
    await db.transaction().execute((trx) => store.markDeleted(trx, b.client_id, owner.user_id, '2026-01-05T00:00:00Z'));
    const disabledFirst = await store.findApp(db, b.client_id);
    assert.deepEqual([disabledFirst?.disabled_at, disabledFirst?.disabled_reason], ['2026-01-02T00:00:00Z', 'abuse'], "an operator's reason stays");
    assert.deepEqual(await store.appsOfOwner(db, owner.user_id), [], 'deleted apps are not listed to their owner');
    assert.equal(await store.activeConnection(db, a.id, donor.user_id), undefined);
  });

  test('insertConnection, activeConnection, updateConnection, connectionsOfUser, touchConnection, revokeConnection (only its user, once)', async () => {
    const { db } = env().deps;
    const owner = await makeUser(env().deps);
    const donor = await makeUser(env().deps);
    const app = await newApp(owner.user_id);
    const c = await connect(app.id, donor.user_id);
    assert.equal((await store.activeConnection(db, app.id, donor.user_id))?.id, c.id);
    await db
      .transaction()
      .execute((trx) => store.updateConnection(trx, c.id, { scopes: 'openid read donate', grant_id: 'grant-2', monthly_limit_cents: 5000, updated_at: '2026-01-03T00:00:00Z' }));
    const [shown] = await store.connectionsOfUser(db, donor.user_id, '2026-01');
    assert.equal(shown?.scopes, 'openid read donate');
    assert.equal(shown?.name, app.name);
    assert.equal(shown?.monthly_limit_cents, 5000);
    assert.equal(shown?.spent_cents, null, 'nothing given this month');
    await store.touchConnection(db, c.id, '2026-01-04T00:00:00Z', '2026-01-03T23:59:00Z');
    await store.touchConnection(db, c.id, '2026-01-04T00:00:30Z', '2026-01-03T23:59:30Z');
    assert.equal((await store.activeConnection(db, app.id, donor.user_id))?.last_used_at, '2026-01-04T00:00:00Z', 'written at most once a minute');
    assert.equal(await db.transaction().execute((trx) => store.revokeConnection(trx, owner.user_id, c.id, '2026-01-05T00:00:00Z')), undefined, "not another user's");
    assert.equal(await db.transaction().execute((trx) => store.revokeConnection(trx, donor.user_id, c.id, '2026-01-05T00:00:00Z')), 'grant-2');
    assert.equal(await db.transaction().execute((trx) => store.revokeConnection(trx, donor.user_id, c.id, '2026-01-05T00:00:00Z')), undefined, 'once');
    assert.equal(await store.activeConnection(db, app.id, donor.user_id), undefined);
    assert.deepEqual(await store.connectionsOfUser(db, donor.user_id, '2026-01'), []);
  });

  test('reserveSpend counts up to the monthly limit and starts again each month; releaseSpend gives back (the row it alone made goes); spentInMonth; no limit counts too', async () => {
    const { db } = env().deps;
    const owner = await makeUser(env().deps);
    const donor = await makeUser(env().deps);
    const app = await newApp(owner.user_id);
    const c = await connect(app.id, donor.user_id, 10_000);
    assert.equal(await store.reserveSpend(db, c.id, '2026-01', 6_000), true);
    assert.equal(await store.reserveSpend(db, c.id, '2026-01', 5_000), false, 'past the limit');
    assert.equal(await store.reserveSpend(db, c.id, '2026-01', 4_000), true, 'exactly the limit');
    await store.releaseSpend(db, c.id, '2026-01', 4_000);
    assert.equal(await store.reserveSpend(db, c.id, '2026-01', 4_000), true, 'given back');
    assert.equal(await store.reserveSpend(db, c.id, '2026-02', 10_000), true, 'a new month starts from zero');
    await store.releaseSpend(db, c.id, '2026-03', 1);
    assert.equal(await store.reserveSpend(db, c.id, '2026-04', 2_500), true);
    assert.equal(await store.spentInMonth(db, c.id, '2026-04'), 2_500);
    await store.releaseSpend(db, c.id, '2026-04', 2_500);
    assert.equal(await store.spentInMonth(db, c.id, '2026-04'), 0, 'spentInMonth: nothing counted');
    assert.equal(await store.spentInMonth(db, c.id, '2026-02'), 10_000);
    const months = await db.selectFrom('app_spending').selectAll().where('connection_id', '=', c.id).orderBy('month').execute();
    assert.deepEqual(
      months.map((m) => [m.month, Number(m.spent_cents), Number(m.limit_cents)]),
      [
        ['2026-01', 10_000, 10_000],
        ['2026-02', 10_000, 10_000],
      ],
      'each month counted under its limit; a release for a month with nothing counted changes nothing; a month whose only count was given back has no row',
    );
    const [shown] = await store.connectionsOfUser(db, donor.user_id, '2026-02');
    assert.equal(Number(shown?.spent_cents), 10_000);
    const other = await makeUser(env().deps);
    const unlimited = await connect(app.id, other.user_id);
    assert.equal(await store.reserveSpend(db, unlimited.id, '2026-01', 99_999_999), true);
    assert.equal(await store.reserveSpend(db, unlimited.id, '2026-01', 1), true, 'no limit: counted, never refused');
    await db.transaction().execute((trx) => store.revokeConnection(trx, other.user_id, unlimited.id, '2026-01-05T00:00:00Z'));
    assert.equal(await store.reserveSpend(db, unlimited.id, '2026-01', 1), false, 'an ended connection counts nothing');
  });

  test("reserveSpend: a month's first count starts from what the previous release counted on the connection", async () => {
    const { db } = env().deps;
    const owner = await makeUser(env().deps);
    const donor = await makeUser(env().deps);
    const app = await newApp(owner.user_id);
    const c = await connect(app.id, donor.user_id, 10_000);
    await db.updateTable('app_connections').set({ spent_month: '2026-01', spent_cents: 9_000 }).where('id', '=', c.id).execute();
    assert.equal(await store.reserveSpend(db, c.id, '2026-01', 2_000), false, 'the old count holds');
    assert.equal(await store.reserveSpend(db, c.id, '2026-01', 1_000), true);
    assert.equal(await store.reserveSpend(db, c.id, '2026-01', 1), false);
    assert.equal(await store.reserveSpend(db, c.id, '2026-02', 10_000), true, 'another month starts from zero');
  });

  test('actingUser: the live user in the live book, their sandbox twin in the test book', async () => {
    const { deps } = env();
    const donor = await makeUser(deps);
    const live = await store.actingUser(deps.db, donor.user_id, 'live');
    assert.deepEqual(live, { user_id: donor.user_id, book: 'live', own_status: 'active', owner_status: null });
    assert.equal(await store.actingUser(deps.db, donor.user_id, 'test'), undefined, 'no twin yet');
    const twin = await deps.db.transaction().execute((trx) => sandboxUserFor(deps, donor.user_id, trx));
    const test = await store.actingUser(deps.db, donor.user_id, 'test');
    assert.equal(test?.user_id, twin);
    assert.equal(test?.book, 'test');
    assert.equal(test?.owner_status, 'active');
  });

  test('accountClaims: a live user with their email, never a twin', async () => {
    const { deps } = env();
    const donor = await makeUser(deps);
    const claims = await store.accountClaims(deps.db, donor.user_id);
    assert.equal(claims?.slug, donor.slug);
    assert.equal(claims?.email, null, 'no web account');
    const twin = await deps.db.transaction().execute((trx) => sandboxUserFor(deps, donor.user_id, trx));
    assert.equal(await store.accountClaims(deps.db, twin), undefined);
  });

  test('artifacts: upsertArtifact, findArtifact (not expired), findArtifactByUid, consumeArtifact, destroyArtifact, revokeArtifactsOfGrant, deleteExpiredArtifacts', async () => {
    const { db } = env().deps;
    const now = 1_800_000_000_000;
    await store.upsertArtifact(db, { kind: 'AccessToken', id: 't1', payload: '{"a":1}', grant_id: 'g1', uid: null, expires_at: now + 1000 });
    await store.upsertArtifact(db, { kind: 'AccessToken', id: 't1', payload: '{"a":2}', grant_id: 'g1', uid: null, expires_at: now + 1000 });
    await store.upsertArtifact(db, { kind: 'RefreshToken', id: 'r1', payload: '{}', grant_id: 'g1', uid: null, expires_at: now + 1000 });
    await store.upsertArtifact(db, { kind: 'Grant', id: 'g1', payload: '{}', grant_id: null, uid: null, expires_at: null });
    await store.upsertArtifact(db, { kind: 'Session', id: 's1', payload: '{"s":1}', grant_id: null, uid: 'u1', expires_at: now - 1 });
    await store.upsertArtifact(db, { kind: 'AccessToken', id: 'other', payload: '{}', grant_id: 'g2', uid: null, expires_at: now + 1000 });
    assert.deepEqual(await store.findArtifact(db, 'AccessToken', 't1', now), { payload: '{"a":2}', consumed_at: null }, 'an upsert replaces');
    assert.equal(await store.findArtifact(db, 'RefreshToken', 't1', now), undefined, 'ids are per kind');
    assert.equal(await store.findArtifactByUid(db, 'Session', 'u1', now), undefined, 'expired');
    assert.deepEqual(await store.findArtifactByUid(db, 'Session', 'u1', now - 10), { payload: '{"s":1}', consumed_at: null });
    await store.consumeArtifact(db, 'AccessToken', 't1', 1_800_000_000);
    assert.equal((await store.findArtifact(db, 'AccessToken', 't1', now))?.consumed_at, 1_800_000_000);
    await store.destroyArtifact(db, 'AccessToken', 'other');
    assert.equal(await store.findArtifact(db, 'AccessToken', 'other', now), undefined);
    assert.equal(await store.revokeArtifactsOfGrant(db, 'g1'), 3, 'its tokens and the grant');
    assert.equal(await store.findArtifact(db, 'Grant', 'g1', now), undefined);
    assert.equal(await store.deleteExpiredArtifacts(db, now), 1, 'the expired session');
  });

  test('keys: insertKey, currentKeys (newest first), retireOlderSigningKeys, removeRetiredKeys', async () => {
    const { db } = env().deps;
    const before = (await store.currentKeys(db)).length;
    const a = await store.insertKey(db, { use: 'signing', secret: '{"kid":"a"}', created_at: '2026-01-01T00:00:00Z' });
    const b = await db.transaction().execute(async (trx) => {
      const id = await store.insertKey(trx, { use: 'signing', secret: '{"kid":"b"}', created_at: '2026-01-02T00:00:00Z' });
      assert.ok((await store.retireOlderSigningKeys(trx, id, '2026-01-02T00:00:00Z')) >= 1);
      return id;
    });
    const keys = await store.currentKeys(db);
    assert.equal(keys.length, before + 2);
    assert.equal(keys[0]?.id, b);
    assert.equal(keys.find((k) => k.id === a)?.retired_at, '2026-01-02T00:00:00Z');
    assert.equal(keys.find((k) => k.id === b)?.retired_at, null);
    assert.ok(
      keys.filter((k) => k.use === 'cookie').every((k) => k.retired_at === null),
      'cookie keys are never retired',
    );
    assert.ok((await store.removeRetiredKeys(db, '2026-01-03T00:00:00Z')) >= 1);
    assert.ok(!(await store.currentKeys(db)).some((k) => k.id === a));
  });
});
