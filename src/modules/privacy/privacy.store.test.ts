// Every function of privacy.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, fund, makeUser } from '../../../test/harness.ts';
import { insertFollow } from '../users/users.store.ts';
import * as store from './privacy.store.ts';
import { connectApp } from '../../../test/app-tokens.ts';

describeEachEngine('privacy store', (env) => {
  test('rowsOfUsers reads everything of the users named; emailsOf their sign-in; pseudonymise removes what names or describes them, and keeps amounts', async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps, { name: 'Private Person', city: 'Lyon' });
    const other = await makeUser(env().deps, { name: 'Other Person' });
    await fund(env().deps, user, 5_000);
    await insertFollow(db, other.user_id, user.user_id, '2026-01-01T00:00:00Z');
    await db.insertInto('accounts').values({ user_id: user.user_id, email: 'private@example.org', password_hash: 'h', created_at: '2026-01-01T00:00:00Z' }).execute();
    const before = await store.rowsOfUsers(db, [user.user_id]);
    assert.deepEqual(
      before.users.map((u) => [u.name, u.city]),
      [['Private Person', 'Lyon']],
    );
    assert.deepEqual(
      before.account.map((a) => a.email),
      ['private@example.org'],
    );
    assert.equal(before.contributions.length, 1);
    assert.equal(before.api_keys.length, 1);
    assert.ok(!('key_hash' in (before.api_keys[0] ?? {})), 'never a key hash');
    assert.equal(before.follows.length, 1);
    assert.ok(before.funds.length === 1 && before.events.length >= 1);
    const connected = await connectApp(env().deps, user.user_id, { scopes: ['read'] });
    const theirs = await connectApp(env().deps, other.user_id, { scopes: ['read'] });
    const withApps = await store.rowsOfUsers(db, [user.user_id]);
    assert.deepEqual(
      withApps.apps.map((a) => a.client_id),
      [connected.clientId],
    );
    assert.ok(!('secret_hash' in (withApps.apps[0] ?? {})), "never a secret's hash");
    assert.deepEqual(
      withApps.app_connections.map((c) => [c.client_id, c.scopes, c.revoked_at]),
      [[connected.clientId, 'read', null]],
    );
    const grantsBefore = await db.selectFrom('oidc_artifacts').select('id').where('kind', '=', 'Grant').execute();

    const emails = await db.transaction().execute((trx) => store.emailsOf(trx, [user.user_id]));
    assert.deepEqual(emails, ['private@example.org']);
    await db.transaction().execute((trx) => store.pseudonymise(trx, [user.user_id], emails, '2026-02-01T00:00:00Z'));
    const after = await store.rowsOfUsers(db, [user.user_id]);
    assert.deepEqual(
      after.users.map((u) => [u.name, u.slug, u.city, u.visible, u.status]),
      [['Deleted user', `deleted-${user.user_id}`, '', 0, 'deleted']],
    );
    assert.deepEqual(after.account, []);
    assert.deepEqual(after.follows, []);
    assert.ok(after.api_keys.every((k) => k.revoked_at !== null));
    assert.equal(after.contributions[0]?.amount_cents, 5_000, 'amounts stay');
    assert.equal((await store.rowsOfUsers(db, [other.user_id])).users[0]?.name, 'Other Person', 'nobody else is touched');
    assert.ok(after.app_connections.every((c) => c.revoked_at !== null));
    assert.ok(after.apps.every((a) => a.disabled_at !== null && a.disabled_reason === "its owner's account was deleted"));
    const grantsAfter = await db.selectFrom('oidc_artifacts').select('id').where('kind', '=', 'Grant').execute();
    assert.equal(grantsAfter.length, grantsBefore.length - 1, "the person's grant is gone, no one else's");
    assert.ok((await db.selectFrom('oidc_artifacts').select('id').where('id', '=', theirs.accessToken).executeTakeFirst()) !== undefined);
    assert.equal(await db.selectFrom('oidc_artifacts').select('id').where('id', '=', connected.accessToken).executeTakeFirst(), undefined, 'their tokens are gone');
  });
});
