// Every function of users.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, makeUser } from '../../../test/harness.ts';
import * as store from './users.store.ts';

describeEachEngine('users store', (env) => {
  const at = '2026-01-02T03:04:05.000Z';

  test('insertUser, insertFund and setFundCauses write a user and their fund; the readers find them', async () => {
    const { db } = env().deps;
    const { userId, fundId } = await db.transaction().execute(async (trx) => {
      const user = await store.insertUser(trx, {
        name: 'Rosa Parks',
        slug: 'rosa',
        city: 'Montgomery',
        avatar_url: null,
        cover_image_url: null,
        visible: true,
        onboarding_status: 'complete',
        created_at: at,
      });
      assert.ok(user !== undefined);
      assert.equal(user.book, 'live');
      const taken = await store.insertUser(trx, {
        name: 'Another Rosa',
        slug: 'rosa',
        city: '',
        avatar_url: null,
        cover_image_url: null,
        visible: true,
        onboarding_status: 'complete',
        created_at: at,
      });
      assert.equal(taken, undefined, 'a taken slug inserts nothing, and the transaction goes on');
      const fund = await store.insertFund(trx, { book: user.book, user_id: user.id, name: 'Rosa Fund', summary: 'Civil rights', created_at: at });
      await store.setFundCauses(trx, fund, [3, 1, 2]);
      await store.setFundCauses(trx, fund, [5, 2]); // replaces, never adds
      return { userId: user.id, fundId: fund };
    });
    const byId = await store.findUserById(db, userId);
    assert.deepEqual(
      { ...byId, id: 0 },
      {
        id: 0,
        name: 'Rosa Parks',
        slug: 'rosa',
        city: 'Montgomery',
        avatar_url: null,
        cover_image_url: null,
        visible: true,
        onboarding_status: 'complete',
        status: 'active',
        book: 'live',
      },
    );
    assert.equal((await store.findUserBySlug(db, 'ROSA'))?.id, userId, 'slugs are found in any case');
    assert.equal(await store.findUserById(db, 999_999), undefined);
    assert.equal(await store.findUserBySlug(db, 'nobody-here'), undefined);
    assert.deepEqual(await store.currentFund(db, userId), { id: fundId, user_id: userId, name: 'Rosa Fund', summary: 'Civil rights' });
    assert.deepEqual(await store.fundCauseIds(db, fundId), [2, 5]);
  });

  test('slugTaken: by anyone, or by someone other than a user', async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps, { name: 'Slug Owner', slug: 'slug-owner' });
    assert.equal(await store.slugTaken(db, 'slug-owner'), true);
    assert.equal(await store.slugTaken(db, 'slug-owner', user.user_id), false, 'their own slug is not taken for them');
    assert.equal(await store.slugTaken(db, 'slug-free'), false);
  });

  test('a sandbox twin: insertUser with sandbox_of is in the test book; findSandboxTwin and sandboxOf link the two', async () => {
    const { db } = env().deps;
    const owner = await makeUser(env().deps);
    const twin = await db.transaction().execute(async (trx) => {
      const made = await store.insertUser(trx, {
        name: 'Twin',
        slug: `twin-${owner.user_id}`,
        city: '',
        avatar_url: null,
        cover_image_url: null,
        visible: false,
        onboarding_status: 'complete',
        created_at: at,
        sandbox_of: owner.user_id,
      });
      assert.ok(made !== undefined);
      await store.insertFund(trx, { book: made.book, user_id: made.id, name: 'Twin Fund', summary: '', created_at: at });
      return made;
    });
    assert.equal(twin.book, 'test');
    assert.equal(await store.findSandboxTwin(db, owner.user_id), twin.id);
    assert.equal(await store.sandboxOf(db, twin.id), owner.user_id);
    assert.equal(await store.sandboxOf(db, owner.user_id), null, "a live user is nobody's twin");
    assert.equal(await store.sandboxOf(db, 999_999), undefined, 'no such user');
    assert.equal(await store.findSandboxTwin(db, twin.id), undefined);
  });

  test('insertFollow (twice is once) and follows', async () => {
    const { db } = env().deps;
    const [a, b] = [await makeUser(env().deps), await makeUser(env().deps)];
    await store.insertFollow(db, a.user_id, b.user_id, at);
    await store.insertFollow(db, a.user_id, b.user_id, at);
    assert.equal(await store.follows(db, a.user_id, b.user_id), true);
    assert.equal(await store.follows(db, b.user_id, a.user_id), false);
    const rows = await db.selectFrom('follows').selectAll().where('follower_id', '=', a.user_id).execute();
    assert.equal(rows.length, 1);
  });

  test('setStatus, updateUser and renameFund change exactly what they name', async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps, { name: 'Before' });
    const other = await makeUser(env().deps, { name: 'Bystander' });
    await db.transaction().execute(async (trx) => {
      await store.setStatus(trx, user.user_id, 'suspended');
      await store.updateUser(trx, user.user_id, { name: 'After', slug: `after-${user.user_id}`, visible: false, avatar_url: 'https://example.org/a.png' });
      await store.renameFund(trx, user.fund_id, 'Renamed');
    });
    const changed = await store.findUserById(db, user.user_id);
    assert.equal(changed?.status, 'suspended');
    assert.equal(changed?.name, 'After');
    assert.equal(changed?.visible, false);
    assert.equal(changed?.avatar_url, 'https://example.org/a.png');
    assert.equal((await store.currentFund(db, user.user_id))?.name, 'Renamed');
    const untouched = await store.findUserById(db, other.user_id);
    assert.equal(untouched?.status, 'active');
    assert.equal(untouched?.name, 'Bystander');
  });

  test("pageOfUsers pages one book by id with each user's fund; anyUser", async () => {
    const { db } = env().deps;
    assert.equal(await store.anyUser(db), true);
    const first = await store.pageOfUsers(db, 'live', { page: 1, per_page: 2 });
    const all = await store.pageOfUsers(db, 'live', { page: 1, per_page: 100 });
    assert.equal(first.count, all.count);
    assert.equal(first.rows.length, 2);
    assert.deepEqual(
      first.rows.map((r) => r.id),
      all.rows.slice(0, 2).map((r) => r.id),
    );
    assert.ok(
      all.rows.every((r, i) => i === 0 || r.id > (all.rows[i - 1]?.id ?? 0)),
      'by id',
    );
    assert.ok(all.rows.every((r) => typeof r.fund_name === 'string' && r.fund_id > 0));
    const test = await store.pageOfUsers(db, 'test', { page: 1, per_page: 100 });
    assert.equal(test.count, test.rows.length);
    assert.ok(test.count >= 1);
    assert.ok(
      test.rows.every((r) => !all.rows.some((l) => l.id === r.id)),
      'the books do not mix',
    );
  });
});
