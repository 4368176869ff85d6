// Every function of members.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, makeUser } from '../../../test/harness.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { sandboxUserFor } from '../users/index.ts';
import * as store from './members.store.ts';

describeEachEngine('members store', (env) => {
  test('a new user is their fund’s organizer and acts on it; invitations, activation, roles and their periods, ends', async () => {
    const { db } = env().deps;
    const [holder, friend] = [await makeUser(env().deps, { name: 'Holder' }), await makeUser(env().deps, { name: 'Friend' })];
    assert.deepEqual(await store.acting(db, holder.user_id), {
      fund_id: holder.fund_id,
      holder_id: holder.user_id,
      role: 'organizer',
      holder_status: 'active',
      holder_owner_status: null,
    });
    assert.equal(await store.currentFundOf(db, holder.user_id), holder.fund_id);
    assert.equal(await store.holderOf(db, holder.fund_id), holder.user_id);
    assert.deepEqual(await store.ownFundOf(db, friend.user_id), { id: friend.fund_id, book: 'live' });
    const invitation = {
      fund_id: holder.fund_id,
      book: 'live' as const,
      user_id: null,
      email: 'friend@example.org',
      role: 'advisor' as const,
      status: 'invited' as const,
      token_hash: 'hash-1',
      token_expires_at: '2026-12-01T00:00:00Z',
      invited_by: holder.user_id,
      created_at: '2026-11-20T00:00:00Z',
      joined_at: null,
    };
    const id = await db.transaction().execute((trx) => store.insertMember(trx, invitation));
    await assert.rejects(
      db.transaction().execute((trx) => store.insertMember(trx, { ...invitation, token_hash: 'hash-2' })),
      (error) => isUniqueViolation(error),
      'one waiting invitation per address and fund',
    );
    assert.equal((await store.waitingInvitation(db, holder.fund_id, 'friend@example.org'))?.id, id);
    assert.equal((await store.invitationByToken(db, 'hash-1'))?.id, id);
    assert.deepEqual(await store.memberCounts(db, holder.fund_id), { total: 2, organizers: 1 });
    await db.transaction().execute(async (trx) => {
      assert.equal(await store.activate(trx, id, friend.user_id, '2026-11-21T00:00:00Z'), true);
      assert.equal(await store.activate(trx, id, friend.user_id, '2026-11-21T00:00:00Z'), false, 'once');
      await store.startRole(trx, { member_id: id, fund_id: holder.fund_id, user_id: friend.user_id, role: 'advisor', since: '2026-11-21T00:00:00Z' });
      await store.setCurrentFund(trx, friend.user_id, holder.fund_id);
    });
    assert.equal(await store.invitationByToken(db, 'hash-1'), undefined, 'a used link is no link');
    assert.equal((await store.acting(db, friend.user_id))?.role, 'advisor');
    // actingOnFund: whatever fund they act on now, their membership of the one named, in its book.
    await store.setCurrentFund(db, friend.user_id, friend.fund_id);
    assert.deepEqual(await store.actingOnFund(db, friend.user_id, holder.fund_id, 'live'), {
      fund_id: holder.fund_id,
      holder_id: holder.user_id,
      role: 'advisor',
      holder_status: 'active',
      holder_owner_status: null,
      own_status: 'active',
      own_owner_status: null,
    });
    assert.equal((await store.actingOnFund(db, friend.user_id, friend.fund_id, 'live'))?.role, 'organizer');
    assert.equal(await store.actingOnFund(db, friend.user_id, holder.fund_id, 'test'), undefined, 'another book');
    assert.equal(await store.actingOnFund(db, holder.user_id, friend.fund_id, 'live'), undefined, 'no member');
    await store.setCurrentFund(db, friend.user_id, holder.fund_id);
    assert.equal((await store.activeMember(db, holder.fund_id, friend.user_id))?.id, id);
    const locked = await db.transaction().execute((trx) => store.lockMember(trx, id, true));
    assert.equal(locked?.status, 'active');
    assert.deepEqual(
      (await store.membersOfFund(db, holder.fund_id)).map((m) => [m.role, m.name]),
      [
        ['organizer', 'Holder'],
        ['advisor', 'Friend'],
      ],
    );
    assert.deepEqual(
      (await store.fundsOfPerson(db, friend.user_id)).map((f) => [f.fund_id, f.role]),
      [
        [friend.fund_id, 'organizer'],
        [holder.fund_id, 'advisor'],
      ],
    );
    assert.deepEqual(
      (await store.membershipsAround(db, friend.user_id, friend.fund_id)).map((m) => m.id),
      [id],
    );
    await db.transaction().execute(async (trx) => {
      await store.endRole(trx, id, '2026-11-22T00:00:00Z');
      await store.changeRole(trx, id, 'family');
      await store.startRole(trx, { member_id: id, fund_id: holder.fund_id, user_id: friend.user_id, role: 'family', since: '2026-11-22T00:00:00Z' });
    });
    const periods = (await store.rolePeriods(db)).filter((p) => p.user_id === friend.user_id && p.fund_id === holder.fund_id);
    assert.deepEqual(
      periods.map((p) => [p.role, p.until]),
      [
        ['advisor', '2026-11-22T00:00:00Z'],
        ['family', null],
      ],
    );
    await db.transaction().execute(async (trx) => {
      assert.equal(await store.endMember(trx, id, '2026-11-23T00:00:00Z', 'self'), true);
      assert.equal(await store.endMember(trx, id, '2026-11-23T00:00:00Z', 'self'), false);
      await store.leaveCurrentFund(trx, holder.fund_id, friend.user_id);
    });
    assert.equal(await store.currentFundOf(db, friend.user_id), friend.fund_id);
    assert.deepEqual(await store.actingOutsideMembership(db), []);
    await db.updateTable('users').set({ current_fund_id: holder.fund_id }).where('id', '=', friend.user_id).execute();
    assert.deepEqual(await store.actingOutsideMembership(db), [friend.user_id], 'acting on a fund one left is found');
    assert.equal(await store.acting(db, friend.user_id), undefined);
  });

  test('addresses and names; twins', async () => {
    const { db, config } = env().deps;
    const holder = await makeUser(env().deps, { name: 'Holder Two' });
    await db.insertInto('accounts').values({ user_id: holder.user_id, email: 'two@example.org', password_hash: 'x', created_at: '2026-11-20T00:00:00Z' }).execute();
    assert.deepEqual(await store.memberEmails(db, holder.fund_id, ['organizer']), [{ user_id: holder.user_id, email: 'two@example.org', name: 'Holder Two' }]);
    assert.deepEqual(await store.memberEmails(db, holder.fund_id, ['advisor']), []);
    assert.deepEqual(await store.accountByEmail(db, 'two@example.org'), { user_id: holder.user_id, status: 'active' });
    assert.equal(await store.confirmedAccountByEmail(db, 'two@example.org'), undefined, 'an address not proven is no one’s yet');
    await db.updateTable('accounts').set({ email_confirmed_at: '2026-11-20T00:00:00Z' }).where('user_id', '=', holder.user_id).execute();
    assert.deepEqual(await store.confirmedAccountByEmail(db, 'two@example.org'), { user_id: holder.user_id, status: 'active' });
    assert.equal(await store.emailOfUser(db, holder.user_id), 'two@example.org');
    assert.deepEqual(await store.fundNames(db, holder.fund_id, holder.user_id), { fund: "Holder Two's Fund", inviter: 'Holder Two' });
    assert.equal(await store.twinOf(db, holder.user_id), undefined);
    const twin = await db.transaction().execute((trx) => sandboxUserFor(env().deps, holder.user_id, trx));
    assert.equal(await store.twinOf(db, holder.user_id), twin);
    assert.ok(config);
  });

  test('what the check reads: movements a page at a time, funds without an organizer', async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps, { name: 'Mover' });
    const gift = await db
      .insertInto('gifts')
      .values({
        code: 'mover-gift',
        user_id: user.user_id,
        fund_id: user.fund_id,
        name: 'x',
        email: null,
        amount_cents: 100,
        message: null,
        ein: null,
        seen: 0,
        status: 'new',
        claimed: 0,
        created_at: 't1',
        updated_at: 't1',
        recipient_user_id: null,
        donation_id: null,
        book: 'live',
        app_connection_id: null,
        actor_id: user.user_id,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      (await store.recentActivity(db, user.fund_id, 5)).map((r) => [r.kind, r.id, r.by]),
      [['gift', gift.id, 'Mover']],
    );
    const gifts = await store.otherMovements(db, 'gifts', 0, 10);
    assert.deepEqual(
      gifts.find((m) => m.id === gift.id),
      { id: gift.id, fund_id: user.fund_id, actor_id: user.user_id, at: 't1' },
    );
    assert.deepEqual(await store.otherMovements(db, 'gifts', gift.id, 10), []);
    assert.deepEqual(await store.donationMovements(db, 0, 10), [], 'no donation held money here');
    assert.deepEqual(await store.fundsWithoutOrganizer(db), []);
    await db.updateTable('fund_members').set({ status: 'removed' }).where('fund_id', '=', user.fund_id).execute();
    assert.deepEqual(await store.fundsWithoutOrganizer(db), [user.fund_id]);
  });
});
