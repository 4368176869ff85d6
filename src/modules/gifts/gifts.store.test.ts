// Every function of gifts.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accountOf, confirmAddressOf, describeEachEngine, makeUser } from '../../../test/harness.ts';
import { signUp } from '../accounts/index.ts';
import * as store from './gifts.store.ts';

describeEachEngine('gifts store', (env) => {
  let seq = 0;
  const gift = (u: { user_id: number; fund_id: number }, created_at: string) => {
    seq += 1;
    return {
      book: 'live' as 'live' | 'test',
      code: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
      user_id: u.user_id,
      fund_id: u.fund_id,
      name: 'Grace',
      email: null as string | null,
      amount_cents: 2500,
      message: null as string | null,
      ein: null,
      seen: 0,
      status: 'new',
      claimed: 0,
      created_at,
      updated_at: created_at,
    };
  };

  test('insertGift, findGiftByCode (any case, its book only), findGiftWithGiver and findGiftByIdWithGiver', async () => {
    const { db } = env().deps;
    const giver = await makeUser(env().deps, { name: 'Giver Name' });
    const g = gift(giver, '2026-01-01T00:00:00Z');
    const id = await db.transaction().execute((trx) => store.insertGift(trx, g));
    const found = await store.findGiftByCode(db, 'live', g.code.toUpperCase());
    assert.equal(found?.id, id);
    assert.equal(found?.amount_cents, 2500);
    assert.equal(await store.findGiftByCode(db, 'test', g.code), undefined);
    const withGiver = await store.findGiftWithGiver(db, 'live', g.code);
    assert.equal(withGiver?.giver_name, 'Giver Name');
    assert.equal(withGiver?.id, id);
    assert.equal(await store.findGiftWithGiver(db, 'test', g.code), undefined);
    const byId = await store.findGiftByIdWithGiver(db, 'live', id);
    assert.deepEqual([byId?.code, byId?.giver_name], [g.code, 'Giver Name']);
    assert.equal(await store.findGiftByIdWithGiver(db, 'test', id), undefined);
  });

  test("giftByExternalId finds the giver's gift by their id; setGiftMetadata replaces its metadata", async () => {
    const { db } = env().deps;
    const giver = await makeUser(env().deps);
    const other = await makeUser(env().deps);
    const g = { ...gift(giver, '2026-01-03T00:00:00Z'), external_id: 'gift-1', metadata: '{"a":"b"}' };
    const id = await db.transaction().execute((trx) => store.insertGift(trx, g));
    assert.equal(await store.giftByExternalId(db, giver.user_id, 'gift-1'), g.code);
    assert.equal(await store.giftByExternalId(db, other.user_id, 'gift-1'), undefined);
    assert.equal(await store.giftByExternalId(db, giver.user_id, 'gift-2'), undefined);
    await store.setGiftMetadata(db, id, null, '2026-01-04T00:00:00Z');
    const row = await db.selectFrom('gifts').select(['metadata', 'updated_at']).where('id', '=', id).executeTakeFirstOrThrow();
    assert.deepEqual(row, { metadata: null, updated_at: '2026-01-04T00:00:00Z' });
  });

  test('markGiftSeen once; lockGift reads it; endGift only from new', async () => {
    const { db } = env().deps;
    const giver = await makeUser(env().deps);
    const recipient = await makeUser(env().deps);
    const id = await db.transaction().execute((trx) => store.insertGift(trx, gift(giver, '2026-01-01T00:00:00Z')));
    assert.equal(await db.transaction().execute((trx) => store.markGiftSeen(trx, id)), true);
    assert.equal(await db.transaction().execute((trx) => store.markGiftSeen(trx, id)), false);
    await db.transaction().execute(async (trx) => {
      const locked = await store.lockGift(trx, id);
      assert.deepEqual([locked.seen, locked.status], [1, 'new']);
      assert.equal(await store.endGift(trx, id, { status: 'accepted', claimed: 1, recipient_user_id: recipient.user_id }, '2026-01-02T00:00:00Z'), true);
      assert.equal(await store.endGift(trx, id, { status: 'denied', claimed: 0, recipient_user_id: recipient.user_id }, '2026-01-02T00:00:00Z'), false);
    });
    const ended = await db.transaction().execute((trx) => store.lockGift(trx, id));
    assert.deepEqual([ended.status, ended.claimed, ended.recipient_user_id, ended.updated_at], ['accepted', 1, recipient.user_id, '2026-01-02T00:00:00Z']);
  });

  test("pageOfGifts: a user's own, newest first, with their count", async () => {
    const { db } = env().deps;
    const [user, other] = [await makeUser(env().deps), await makeUser(env().deps)];
    const ids = await db
      .transaction()
      .execute(async (trx) => [
        await store.insertGift(trx, gift(user, '2026-01-02T00:00:00Z')),
        await store.insertGift(trx, gift(user, '2026-01-01T00:00:00Z')),
        await store.insertGift(trx, gift(other, '2026-01-03T00:00:00Z')),
      ]);
    const page = await store.pageOfGifts(db, user.user_id, { page: 1, per_page: 10 });
    assert.equal(page.count, 2);
    assert.deepEqual(
      page.rows.map((r) => r.id),
      [ids[0], ids[1]],
    );
  });

  test("giftsWaitingAt: open gifts of the book sent to the account's address in any case, not its own fund's, oldest first", async () => {
    const { deps } = env();
    const { db } = deps;
    const giver = await makeUser(deps, { name: 'Gia Giver' });
    const rio = await signUp(deps, { name: 'Rio Recipient', email: 'rio.waiting@example.org', password: 'correct horse battery' });
    const rioIds = await accountOf(deps, 'rio.waiting@example.org');
    const to = (email: string | null, created_at: string, extra: Partial<ReturnType<typeof gift>> = {}) => ({ ...gift(giver, created_at), email, ...extra });
    const [later, earlier] = await db
      .transaction()
      .execute(async (trx) => [
        await store.insertGift(trx, to('Rio.Waiting@Example.org', '2026-02-02T00:00:00Z', { message: 'for you' })),
        await store.insertGift(trx, to('rio.waiting@example.org', '2026-02-01T00:00:00Z')),
        await store.insertGift(trx, to('rio.waiting@example.org', '2026-02-03T00:00:00Z', { status: 'denied' })),
        await store.insertGift(trx, to('rio.waiting@example.org', '2026-02-04T00:00:00Z', { book: 'test' })),
        await store.insertGift(trx, to('someone@example.org', '2026-02-05T00:00:00Z')),
        await store.insertGift(trx, { ...gift(rioIds, '2026-02-06T00:00:00Z'), email: 'rio.waiting@example.org' }),
      ]);
    // Until the address is proven, nothing waiting at it is shown (rules §15).
    assert.deepEqual(await store.giftsWaitingAt(db, 'live', rioIds.user_id, rioIds.fund_id, 20), [], 'an unconfirmed address sees nothing');
    await confirmAddressOf(deps, rioIds.user_id, 'rio.waiting@example.org');
    const waiting = await store.giftsWaitingAt(db, 'live', rioIds.user_id, rioIds.fund_id, 20);
    const codes = async (ids: Array<number | undefined>) =>
      Promise.all(
        ids.map(
          async (id) =>
            (
              await db
                .selectFrom('gifts')
                .select('code')
                .where('id', '=', id ?? 0)
                .executeTakeFirstOrThrow()
            ).code,
        ),
      );
    assert.deepEqual(
      waiting.map((g) => g.code),
      await codes([earlier, later]),
    );
    assert.deepEqual(
      { ...waiting[1], code: undefined },
      { code: undefined, name: 'Grace', amount_cents: 2500, message: 'for you', giver_name: 'Gia Giver', created_at: '2026-02-02T00:00:00Z' },
    );
    assert.equal((await store.giftsWaitingAt(db, 'live', rioIds.user_id, rioIds.fund_id, 1)).length, 1, 'at most the limit');
    assert.deepEqual(await store.giftsWaitingAt(db, 'live', giver.user_id, giver.fund_id, 20), [], 'no account, no address');
    assert.equal(rio.user_id, rioIds.user_id);
  });
});
