// Every function of charities.store.ts on both engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, makeNonProfit, makeUser } from '../../../test/harness.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import * as store from './charities.store.ts';

describeEachEngine('charities store', (env) => {
  test('claims: one live per person and organisation, found by token, moved once, listed, their addresses', async () => {
    const { db } = env().deps;
    await makeNonProfit(env().deps, { ein: '261544963', name: 'Vermont Foodbank' });
    await makeNonProfit(env().deps, { ein: '030219309', name: 'Green Mountain Arts' });
    const [foodbank, arts] = await Promise.all(
      ['261544963', '030219309'].map(async (ein) => Number((await db.selectFrom('non_profits').select('id').where('ein', '=', ein).executeTakeFirstOrThrow()).id)),
    );
    const [alice, bob] = [await makeUser(env().deps, { name: 'Alice' }), await makeUser(env().deps, { name: 'Bob' })];
    const claim = (userId: number, nonProfitId: number, email: string, token: string) => ({
      non_profit_id: nonProfitId,
      user_id: userId,
      email,
      domain: 'vtfoodbank.org',
      website_on_file: 1,
      token_hash: token,
      token_expires_at: '2026-11-21T00:00:00Z',
      status: 'unconfirmed' as const,
      created_at: '2026-11-20T00:00:00Z',
      confirmed_at: null,
      decided_at: null,
      decided_by: null,
      decision_note: null,
    });
    const a = await db.transaction().execute((trx) => store.insertClaim(trx, claim(alice.user_id, foodbank as number, 'alice@vtfoodbank.org', 'ha')));
    await assert.rejects(
      db.transaction().execute((trx) => store.insertClaim(trx, claim(alice.user_id, foodbank as number, 'a2@vtfoodbank.org', 'hb'))),
      (error) => isUniqueViolation(error),
      'a second live claim of one person for one organisation',
    );
    assert.equal(Number((await store.liveClaimOf(db, alice.user_id, foodbank as number))?.id), a);
    assert.equal(await store.liveClaimOf(db, bob.user_id, foodbank as number), undefined);
    await db.transaction().execute((trx) =>
      store.renewLink(trx, a, {
        email: 'alice@mail.vtfoodbank.org',
        domain: 'vtfoodbank.org',
        website_on_file: 1,
        token_hash: 'hc',
        token_expires_at: '2026-11-22T00:00:00Z',
        created_at: '2026-11-21T00:00:00Z',
      }),
    );
    assert.equal(await store.claimByToken(db, 'ha'), undefined, 'the older link stops working');
    assert.equal((await store.claimByToken(db, 'hc'))?.email, 'alice@mail.vtfoodbank.org');
    assert.deepEqual(
      await db
        .transaction()
        .execute(async (trx) => [
          await store.moveClaim(trx, a, 'unconfirmed', { status: 'pending', confirmed_at: '2026-11-21T01:00:00Z' }),
          await store.moveClaim(trx, a, 'unconfirmed', { status: 'pending', confirmed_at: '2026-11-21T02:00:00Z' }),
        ]),
      [true, false],
    );
    assert.equal((await store.findClaim(db, a))?.confirmed_at, '2026-11-21T01:00:00Z');
    assert.deepEqual(
      (await store.claimsIn(db, 'pending', 10)).map((c) => [Number(c.id), c.ein, c.non_profit, c.person, c.email]),
      [[a, '261544963', 'Vermont Foodbank', 'Alice', 'alice@mail.vtfoodbank.org']],
    );
    await db.transaction().execute((trx) => store.moveClaim(trx, a, 'pending', { status: 'approved', decided_at: '2026-11-21T03:00:00Z', decided_by: 'op', decision_note: 'ok' }));
    const b = await db.transaction().execute((trx) => store.insertClaim(trx, { ...claim(bob.user_id, foodbank as number, 'bob@vtfoodbank.org', 'hd'), status: 'approved' }));
    await db.transaction().execute((trx) => store.insertClaim(trx, { ...claim(bob.user_id, arts as number, 'bob@arts.org', 'he'), status: 'rejected' }));
    // A refused claim does not count: the person may claim again.
    await db.transaction().execute((trx) => store.insertClaim(trx, claim(bob.user_id, arts as number, 'bob@arts.org', 'hf')));
    assert.deepEqual(await store.claimantAddresses(db, foodbank as number, null), ['alice@mail.vtfoodbank.org', 'bob@vtfoodbank.org']);
    assert.deepEqual(await store.claimantAddresses(db, foodbank as number, alice.user_id), ['bob@vtfoodbank.org']);
    assert.deepEqual(await store.claimantsOf(db, [foodbank as number, arts as number]), [
      { non_profit_id: foodbank, email: 'alice@mail.vtfoodbank.org' },
      { non_profit_id: foodbank, email: 'bob@vtfoodbank.org' },
    ]);
    assert.deepEqual(await store.claimantsOf(db, []), []);
    assert.equal(await store.unconfirmedCount(db, bob.user_id), 1);
    assert.equal(await store.unconfirmedCount(db, alice.user_id), 0);
    assert.deepEqual(
      (await store.claimsOfUser(db, bob.user_id)).map((c) => [c.ein, c.status]),
      [
        ['030219309', 'unconfirmed'],
        ['261544963', 'approved'],
      ],
    );
    assert.ok(b > a);
    assert.deepEqual(await store.organisationOf(db, arts as number), { ein: '030219309', name: 'Green Mountain Arts' });
  });

  test('claimMailsTo: when each claim mail to an address was queued since a time, oldest first', async () => {
    const { db } = env().deps;
    const mail = (recipient: string, kind: string, created_at: string) => ({
      kind,
      recipient,
      subject: 's',
      text: 't',
      html: 'h',
      status: 'pending',
      next_at: created_at,
      claimed_until: null,
      last_error: null,
      created_at,
      sent_at: null,
      event_id: null,
    });
    await db
      .insertInto('mail_outbox')
      .values([
        mail('jo@claims.example', 'charity_claim', '2026-03-01T10:30:00.000Z'),
        mail('jo@claims.example', 'charity_claim', '2026-03-01T10:10:00.000Z'),
        mail('jo@claims.example', 'charity_claim', '2026-03-01T08:00:00.000Z'),
        mail('jo@claims.example', 'password_reset', '2026-03-01T10:20:00.000Z'),
        mail('al@claims.example', 'charity_claim', '2026-03-01T10:20:00.000Z'),
      ])
      .execute();
    assert.deepEqual(await db.transaction().execute((trx) => store.claimMailsTo(trx, 'jo@claims.example', '2026-03-01T10:00:00.000Z')), [
      '2026-03-01T10:10:00.000Z',
      '2026-03-01T10:30:00.000Z',
    ]);
  });
});
