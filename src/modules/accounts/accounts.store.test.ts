// Every function of accounts.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, makeUser } from '../../../test/harness.ts';
import * as store from './accounts.store.ts';

describeEachEngine('accounts store', (env) => {
  test('insertAccount refuses a second account for an email; findAccountByEmail and emailOf read it', async () => {
    const { db } = env().deps;
    const [a, b] = [await makeUser(env().deps), await makeUser(env().deps)];
    const first = await db
      .transaction()
      .execute((trx) => store.insertAccount(trx, { user_id: a.user_id, email: 'ada@example.org', password_hash: 'h1', created_at: '2026-01-01T00:00:00Z' }));
    const second = await db
      .transaction()
      .execute((trx) => store.insertAccount(trx, { user_id: b.user_id, email: 'ada@example.org', password_hash: 'h2', created_at: '2026-01-01T00:00:00Z' }));
    assert.equal(first, true);
    assert.equal(second, false);
    assert.deepEqual(await store.findAccountByEmail(db, 'ada@example.org'), { user_id: a.user_id, password_hash: 'h1' });
    assert.equal(await store.findAccountByEmail(db, 'nobody@example.org'), undefined);
    assert.equal(await store.emailOf(db, a.user_id), 'ada@example.org');
    assert.equal(await store.emailOf(db, b.user_id), undefined);
  });

  test('sessions: insertSession, findSession (until it expires), deleteSession, deleteExpiredSessionsOf; statusOfUser', async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps, { name: 'Session Holder' });
    await store.insertSession(db, { id_hash: 'live', user_id: user.user_id, csrf_token: 'c1', created_at: '2026-01-01T00:00:00Z', expires_at: '2026-02-01T00:00:00Z' });
    await store.insertSession(db, { id_hash: 'old', user_id: user.user_id, csrf_token: 'c2', created_at: '2025-01-01T00:00:00Z', expires_at: '2025-02-01T00:00:00Z' });
    const found = await store.findSession(db, 'live', '2026-01-15T00:00:00Z');
    assert.deepEqual(found, {
      user_id: user.user_id,
      name: 'Session Holder',
      slug: user.slug,
      user_status: 'active',
      csrf_token: 'c1',
      expires_at: '2026-02-01T00:00:00Z',
    });
    assert.equal(await store.findSession(db, 'live', '2026-02-01T00:00:00Z'), undefined, 'expired at its expiry');
    assert.equal(await store.findSession(db, 'old', '2026-01-15T00:00:00Z'), undefined);
    await store.deleteExpiredSessionsOf(db, user.user_id, '2026-01-15T00:00:00Z');
    const left = await db.selectFrom('web_sessions').select('id_hash').where('user_id', '=', user.user_id).execute();
    assert.deepEqual(
      left.map((r) => r.id_hash),
      ['live'],
    );
    await store.deleteSession(db, 'live');
    assert.equal(await store.findSession(db, 'live', '2026-01-15T00:00:00Z'), undefined);
    assert.equal(await db.transaction().execute((trx) => store.statusOfUser(trx, user.user_id)), 'active');
  });

  test('reserveAttempt counts failures per email and per address in the window; releaseAttempt and clearFailures forget them', async () => {
    const { db } = env().deps;
    const limits = { email: 2, ip: 3 };
    const since = '2026-01-01T00:00:00Z';
    const attempt = (email: string, ip: string) => store.reserveAttempt(db, { email, ip, at: '2026-01-01T00:10:00Z' }, since, limits);
    const one = await attempt('x@example.org', '10.0.0.1');
    const two = await attempt('x@example.org', '10.0.0.1');
    assert.ok('id' in one && 'id' in two);
    assert.deepEqual(await attempt('x@example.org', '10.0.0.2'), { over: 'email', oldest: '2026-01-01T00:10:00Z' });
    assert.ok('id' in (await attempt('y@example.org', '10.0.0.1')));
    assert.deepEqual(await attempt('z@example.org', '10.0.0.1'), { over: 'ip', oldest: '2026-01-01T00:10:00Z' });
    await store.releaseAttempt(db, one.id);
    assert.ok('id' in (await attempt('x@example.org', '10.0.0.9')), 'a released attempt is no failure');
    await db.transaction().execute((trx) => store.clearFailures(trx, 'x@example.org'));
    const left = await db.selectFrom('sign_in_failures').select('email').where('email', '=', 'x@example.org').execute();
    assert.equal(left.length, 0);
    // Failures older than the window are no longer counted.
    assert.ok('id' in (await store.reserveAttempt(db, { email: 'y@example.org', ip: '10.9.9.9', at: '2026-03-01T00:00:00Z' }, '2026-02-01T00:00:00Z', { email: 1, ip: 1 })));
  });

  test('invitations: insertInvitation, openInvitation while unused and unexpired, useInvitation once; hasAccount', async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps);
    await db
      .transaction()
      .execute((trx) => store.insertInvitation(trx, { token_hash: 'inv-hash', user_id: user.user_id, created_at: '2026-01-01T00:00:00Z', expires_at: '2026-01-08T00:00:00Z' }));
    assert.deepEqual(await store.openInvitation(db, 'inv-hash', '2026-01-02T00:00:00Z'), { user_id: user.user_id });
    assert.equal(await store.openInvitation(db, 'inv-hash', '2026-01-08T00:00:00Z'), undefined, 'expired at its expiry');
    assert.equal(await store.openInvitation(db, 'other-hash', '2026-01-02T00:00:00Z'), undefined);
    assert.equal(await db.transaction().execute((trx) => store.useInvitation(trx, 'inv-hash', '2026-01-02T00:00:00Z')), true);
    assert.equal(await db.transaction().execute((trx) => store.useInvitation(trx, 'inv-hash', '2026-01-02T00:00:01Z')), false, 'once');
    assert.equal(await store.openInvitation(db, 'inv-hash', '2026-01-02T00:00:02Z'), undefined, 'used');
    assert.equal(await store.hasAccount(db, user.user_id), false);
    await db
      .transaction()
      .execute((trx) => store.insertAccount(trx, { user_id: user.user_id, email: 'invited-store@example.org', password_hash: 'h', created_at: '2026-01-02T00:00:00Z' }));
    assert.equal(await store.hasAccount(db, user.user_id), true);
  });

  test('password resets: accountForReset, insertPasswordReset, openPasswordReset while fresh, usePasswordReset once, endOpenPasswordResets, setPasswordEndingSessions', async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps);
    await db
      .transaction()
      .execute((trx) => store.insertAccount(trx, { user_id: user.user_id, email: 'reset-store@example.org', password_hash: 'old', created_at: '2026-01-01T00:00:00Z' }));
    assert.deepEqual(await store.accountForReset(db, 'reset-store@example.org'), { user_id: user.user_id, status: 'active' });
    assert.equal(await store.accountForReset(db, 'nobody-store@example.org'), undefined);
    await db
      .transaction()
      .execute((trx) =>
        store.insertPasswordReset(trx, { token_hash: 'reset-hash', user_id: user.user_id, created_at: '2026-01-01T00:00:00Z', expires_at: '2026-01-01T01:00:00Z' }),
      );
    assert.deepEqual(await store.openPasswordReset(db, 'reset-hash', '2026-01-01T00:30:00Z'), { user_id: user.user_id });
    assert.equal(await store.openPasswordReset(db, 'reset-hash', '2026-01-01T01:00:00Z'), undefined, 'expired at its expiry');
    assert.equal(await db.transaction().execute((trx) => store.usePasswordReset(trx, 'reset-hash', '2026-01-01T01:00:01Z')), false, 'not once expired');
    assert.equal(await db.transaction().execute((trx) => store.usePasswordReset(trx, 'reset-hash', '2026-01-01T00:30:00Z')), true);
    assert.equal(await db.transaction().execute((trx) => store.usePasswordReset(trx, 'reset-hash', '2026-01-01T00:30:01Z')), false, 'once');
    const open = (hash: string) => ({ token_hash: hash, user_id: user.user_id, created_at: '2026-01-01T00:00:00Z', expires_at: '2026-01-01T01:00:00Z' });
    await db.transaction().execute(async (trx) => {
      await store.insertPasswordReset(trx, open('reset-a'));
      await store.insertPasswordReset(trx, open('reset-b'));
    });
    assert.equal(
      await db.transaction().execute((trx) => store.endOpenPasswordResets(trx, user.user_id, '2026-01-01T00:10:00Z')),
      2,
      'the two still open; the used one is left as it was',
    );
    assert.equal(await store.openPasswordReset(db, 'reset-a', '2026-01-01T00:20:00Z'), undefined);
    assert.equal(await store.openPasswordReset(db, 'reset-b', '2026-01-01T00:20:00Z'), undefined);
    await store.insertSession(db, { id_hash: 'reset-session', user_id: user.user_id, csrf_token: 'c', created_at: '2026-01-01T00:00:00Z', expires_at: '2099-01-01T00:00:00Z' });
    await db.transaction().execute((trx) => store.setPasswordEndingSessions(trx, user.user_id, 'new'));
    assert.equal((await store.findAccountByEmail(db, 'reset-store@example.org'))?.password_hash, 'new');
    assert.equal(await store.findSession(db, 'reset-session', '2026-01-01T00:30:00Z'), undefined);
  });

  test('addresses: addressOf, insertAddressConfirmation, findAddressConfirmation, lastAddressConfirmation, endOpenAddressConfirmations, useAddressConfirmation once, confirmAccountAddress, emailHeldByOther, passwordHashOf', async () => {
    const { db } = env().deps;
    const [a, b] = [await makeUser(env().deps), await makeUser(env().deps)];
    await db.transaction().execute(async (trx) => {
      await store.insertAccount(trx, { user_id: a.user_id, email: 'addr-a@example.org', password_hash: 'ha', created_at: '2026-01-01T00:00:00Z' });
      await store.insertAccount(trx, {
        user_id: b.user_id,
        email: 'addr-b@example.org',
        password_hash: 'hb',
        created_at: '2026-01-01T00:00:00Z',
        email_confirmed_at: '2026-01-01T00:00:00Z',
      });
    });
    assert.deepEqual(await store.addressOf(db, a.user_id), { email: 'addr-a@example.org', email_confirmed_at: null });
    assert.deepEqual(await store.addressOf(db, b.user_id), { email: 'addr-b@example.org', email_confirmed_at: '2026-01-01T00:00:00Z' });
    assert.equal(await store.passwordHashOf(db, a.user_id), 'ha');
    assert.equal(await store.emailHeldByOther(db, 'addr-b@example.org', a.user_id), true);
    assert.equal(await store.emailHeldByOther(db, 'addr-b@example.org', b.user_id), false);
    await db.transaction().execute(async (trx) => {
      await store.insertAddressConfirmation(trx, {
        token_hash: 't1',
        user_id: a.user_id,
        email: 'addr-a@example.org',
        created_at: '2026-01-02T00:00:00Z',
        expires_at: '2026-01-04T00:00:00Z',
      });
      await store.insertAddressConfirmation(trx, {
        token_hash: 't2',
        user_id: a.user_id,
        email: 'addr-new@example.org',
        created_at: '2026-01-03T00:00:00Z',
        expires_at: '2026-01-05T00:00:00Z',
      });
    });
    assert.deepEqual(await store.lastAddressConfirmation(db, a.user_id), {
      email: 'addr-new@example.org',
      created_at: '2026-01-03T00:00:00Z',
      expires_at: '2026-01-05T00:00:00Z',
      used_at: null,
    });
    await db.transaction().execute((trx) => store.endOpenAddressConfirmations(trx, a.user_id, '2026-01-03T12:00:00Z'));
    assert.equal((await store.findAddressConfirmation(db, 't1'))?.expires_at, '2026-01-03T12:00:00Z', 'an open link is ended');
    assert.equal(await db.transaction().execute((trx) => store.useAddressConfirmation(trx, 't2', '2026-01-03T13:00:00Z')), true);
    assert.equal(await db.transaction().execute((trx) => store.useAddressConfirmation(trx, 't2', '2026-01-03T14:00:00Z')), false, 'once');
    assert.equal((await store.findAddressConfirmation(db, 't2'))?.used_at, '2026-01-03T13:00:00Z');
    assert.equal(await store.findAddressConfirmation(db, 'nope'), undefined);
    assert.equal(
      await db.transaction().execute((trx) => store.confirmAccountAddress(trx, a.user_id, 'addr-b@example.org', '2026-01-03T13:00:00Z')),
      false,
      "another account's address",
    );
    assert.equal(await db.transaction().execute((trx) => store.confirmAccountAddress(trx, a.user_id, 'addr-new@example.org', '2026-01-03T13:00:00Z')), true);
    assert.deepEqual(await store.addressOf(db, a.user_id), { email: 'addr-new@example.org', email_confirmed_at: '2026-01-03T13:00:00Z' });
  });
});
