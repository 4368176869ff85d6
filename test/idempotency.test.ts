// Exactly once under Idempotency-Key across crashes (rules §11): the use
// case records its outcome in its own transaction, so a retry after a crash
// between the commit and the stored answer replays instead of redoing, and
// an attempt whose key was taken over rolls back.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { engines, openEnv, makeUser, fund, makeNonProfit, call, fingerprint, assertLedgerBalanced, TestClock, type TestEnv, type TestUser } from './harness.ts';
import { claimKey, settleKey } from '../src/modules/idempotency/index.ts';
import { createDonation } from '../src/modules/donations/index.ts';
import { AppError } from '../src/shared/errors.ts';

const EIN = '261544963';

for (const { name: engine } of engines()) {
  describe(`idempotency across crashes on ${engine}`, () => {
    let env: TestEnv;
    let giver: TestUser;
    let recipient: TestUser;
    before(async () => {
      env = await openEnv(engine);
      giver = await makeUser(env.deps);
      recipient = await makeUser(env.deps);
      await makeNonProfit(env.deps, { ein: EIN, name: 'Khan Academy' });
      await fund(env.deps, giver, 1_000_00);
    });
    after(async () => env.close());

    const row = (user: TestUser, key: string) =>
      env.deps.db.selectFrom('idempotency_keys').selectAll().where('user_id', '=', user.user_id).where('key', '=', key).executeTakeFirstOrThrow();
    /** What a crash right after the use case's commit leaves: the outcome, no stored answer. */
    const crashAfterCommit = (user: TestUser, key: string) =>
      env.deps.db
        .updateTable('idempotency_keys')
        .set({ state: 'committed', response_status: null, response_body: null })
        .where('user_id', '=', user.user_id)
        .where('key', '=', key)
        .execute();

    test('a key kept past its time is claimed afresh; until then another request with it is refused and the first one replayed', async () => {
      const clock = new TestClock(new Date().toISOString());
      const deps = { ...env.deps, clock };
      const first = await claimKey(deps, giver.user_id, 'expiring', 'hash-a');
      assert.equal(first.kind, 'claimed');
      if (first.kind !== 'claimed') return;
      await settleKey(deps, first.claim, 201, '{"a":1}');
      await assert.rejects(claimKey(deps, giver.user_id, 'expiring', 'hash-b'), (error: unknown) => error instanceof AppError && error.code === 'idempotency_key_reused');
      assert.deepEqual(await claimKey(deps, giver.user_id, 'expiring', 'hash-a'), { kind: 'answered', status: 201, response: '{"a":1}' });
      clock.advance(env.deps.config.idempotencyTtlHours * 3_600_000 + 1_000);
      const again = await claimKey(deps, giver.user_id, 'expiring', 'hash-b');
      assert.equal(again.kind, 'claimed');
      assert.notEqual(again.kind === 'claimed' ? again.claim.token : '', first.claim.token);
      const record = await row(giver, 'expiring');
      assert.deepEqual([record.state, record.request_hash, record.response_body], ['in_progress', 'hash-b', null]);
    });

    const cases: Array<{
      name: string;
      user: () => TestUser;
      url: () => Promise<string> | string;
      body: () => unknown;
      status: number;
      resource: RegExp;
      id: (body: any) => unknown;
    }> = [
      { name: 'a donation', user: () => giver, url: () => '/v1/donations', body: () => ({ ein: EIN, amount: 10 }), status: 201, resource: /^donation:\d+$/, id: (b) => b.id },
      {
        name: 'a donation under a user id',
        user: () => giver,
        url: () => `/v1/users/${giver.user_id}/donations`,
        body: () => ({ ein: EIN, amount: 11 }),
        status: 201,
        resource: /^donation:\d+$/,
        id: (b) => b.id,
      },
      { name: 'a gift', user: () => giver, url: () => '/v1/gifts', body: () => ({ name: 'Bo', amount: 20 }), status: 201, resource: /^gift:[0-9a-f-]{36}$/, id: (b) => b.code },
      {
        name: 'a recurring donation',
        user: () => giver,
        url: () => '/v1/scheduled_donations',
        body: () => ({ ein: EIN, amount: 12, frequency: 'Monthly' }),
        status: 201,
        resource: /^scheduled_donation:\d+$/,
        id: (b) => b.id,
      },
      {
        name: 'claiming a gift',
        user: () => recipient,
        status: 200,
        resource: /^gift_action:[0-9a-f-]{36}$/,
        id: (b) => `${b.code} ${b.status}`,
        body: () => ({ ein: EIN }),
        url: async () => `/v1/gifts/${(await call(env.app, 'POST', '/v1/gifts', { key: giver.key, body: { name: 'Cy', amount: 18 } })).body.code}/claim`,
      },
    ];

    for (const c of cases) {
      test(`${c.name}: the outcome is written with the work; after a crash before the answer was stored, a retry replays it`, async () => {
        const key = `crash-${c.name.replace(/ /g, '-')}`;
        const url = await c.url();
        const first = await call(env.app, 'POST', url, { key: c.user().key, body: c.body(), headers: { 'idempotency-key': key } });
        assert.equal(first.status, c.status, JSON.stringify(first.body));
        const stored = await row(c.user(), key);
        assert.match(stored.resource ?? '', c.resource, "the outcome was recorded in the use case's transaction");
        assert.equal(stored.state, 'done');
        await crashAfterCommit(c.user(), key);
        const before = await fingerprint(env.deps);
        const retry = await call(env.app, 'POST', url, { key: c.user().key, body: c.body(), headers: { 'idempotency-key': key } });
        assert.equal(retry.status, c.status);
        assert.equal(retry.headers['idempotent-replayed'], 'true');
        assert.equal(c.id(retry.body), c.id(first.body), 'the same resource');
        assert.equal(retry.headers.location, first.headers.location);
        assert.deepEqual(await fingerprint(env.deps), before, 'nothing done twice');
      });
    }

    test('a claim that died before its commit is taken over once its lock runs out, and the work is done once', async () => {
      const key = 'died-before-commit';
      const body = { ein: EIN, amount: 13 };
      const first = await call(env.app, 'POST', '/v1/donations', { key: giver.key, body, headers: { 'idempotency-key': key } });
      // Pretend that attempt died before committing: no outcome, still claimed.
      const donationId = first.body.id as number;
      await env.deps.db
        .deleteFrom('postings')
        .where('entry_id', 'in', env.deps.db.selectFrom('journal_entries').select('id').where('donation_id', '=', donationId))
        .execute();
      const entries = env.deps.db.selectFrom('journal_entries').select('id').where('donation_id', '=', donationId);
      // Its entries' places in the log (SQLite's writer gave them), or their names among the waiting
      // (SQLite; on PostgreSQL an entry waits by its row's txid, gone with the row).
      await env.deps.db.deleteFrom('ledger_places').where('entry_id', 'in', entries).execute();
      await env.deps.db.deleteFrom('ledger_waiting').where('entry_id', 'in', entries).execute();
      await env.deps.db.deleteFrom('journal_entries').where('donation_id', '=', donationId).execute();
      await env.deps.db.deleteFrom('events').where('object_type', '=', 'donation').where('object_id', '=', donationId).execute();
      await env.deps.db.deleteFrom('donations').where('id', '=', donationId).execute();
      await env.deps.db
        .updateTable('ledger_accounts')
        .set((eb) => ({ balance_cents: eb('balance_cents', '+', 1300) }))
        .where('fund_id', '=', giver.fund_id)
        .where('kind', '=', 'available')
        .execute();
      await env.deps.db
        .updateTable('ledger_accounts')
        .set((eb) => ({ balance_cents: eb('balance_cents', '-', 1300) }))
        .where('fund_id', '=', giver.fund_id)
        .where('kind', '=', 'reserved')
        .execute();
      await env.deps.db
        .updateTable('donation_counts')
        .set((eb) => ({ total: eb('total', '-', 1), public_total: eb('public_total', '-', 1) }))
        .where('user_id', '=', giver.user_id)
        .execute();
      await env.deps.db
        .updateTable('idempotency_keys')
        .set({ state: 'in_progress', resource: null, response_status: null, response_body: null, locked_until: new Date(Date.now() + 60_000).toISOString() })
        .where('key', '=', key)
        .execute();
      await assertLedgerBalanced(env.deps);
      const before = await fingerprint(env.deps);
      const early = await call(env.app, 'POST', '/v1/donations', { key: giver.key, body, headers: { 'idempotency-key': key } });
      assert.equal(early.status, 409);
      assert.equal(early.body.code, 'idempotency_key_in_use');
      assert.deepEqual(await fingerprint(env.deps), before, 'nothing while the first attempt may still be alive');
      await env.deps.db
        .updateTable('idempotency_keys')
        .set({ locked_until: new Date(Date.now() - 1000).toISOString() })
        .where('key', '=', key)
        .execute();
      const retry = await call(env.app, 'POST', '/v1/donations', { key: giver.key, body, headers: { 'idempotency-key': key } });
      assert.equal(retry.status, 201);
      assert.equal(retry.headers['idempotent-replayed'], undefined, 'done now, for the first time');
      const again = await call(env.app, 'POST', '/v1/donations', { key: giver.key, body, headers: { 'idempotency-key': key } });
      assert.equal(again.body.id, retry.body.id);
      const made = await env.deps.db.selectFrom('donations').select('id').where('user_id', '=', giver.user_id).where('amount_cents', '=', 1300).execute();
      assert.equal(made.length, 1);
      await assertLedgerBalanced(env.deps);
    });

    test('a body refused by validation records nothing under its key: the corrected request may use it', async () => {
      for (const [url, bad, good, other] of [
        ['/v1/donations', { ein: EIN, amount: 5 }, { ein: EIN, amount: 17 }, { ein: EIN, amount: 18 }],
        ['/v1/gifts', { name: 'Di', amount: 'twelve' }, { name: 'Di', amount: 20 }, { name: 'Di', amount: 21 }],
      ] as const) {
        const key = `refused-first${url}`;
        const before = await fingerprint(env.deps);
        const refused = await call(env.app, 'POST', url, { key: giver.key, body: bad, headers: { 'idempotency-key': key } });
        assert.equal(refused.status, 422, url);
        assert.ok(['amount_below_minimum', 'validation_failed', 'amount_invalid'].includes(refused.body.code), `${url}: ${refused.body.code}`);
        assert.deepEqual(await fingerprint(env.deps), before, `${url}: nothing written, the key's record included`);
        const made = await call(env.app, 'POST', url, { key: giver.key, body: good, headers: { 'idempotency-key': key } });
        assert.equal(made.status, 201, JSON.stringify(made.body));
        const replayed = await call(env.app, 'POST', url, { key: giver.key, body: good, headers: { 'idempotency-key': key } });
        assert.equal(replayed.headers['idempotent-replayed'], 'true');
        assert.deepEqual(replayed.body, made.body);
        // Validation still answers first for a body it refuses; a valid other body meets the key's record.
        const invalid = await call(env.app, 'POST', url, { key: giver.key, body: bad, headers: { 'idempotency-key': key } });
        assert.equal(invalid.body.code, refused.body.code);
        const reused = await call(env.app, 'POST', url, { key: giver.key, body: other, headers: { 'idempotency-key': key } });
        assert.equal(reused.status, 422);
        assert.equal(reused.body.code, 'idempotency_key_reused');
      }
    });

    test('a refusal by the work itself (the organisation cannot receive) is the first answer, replayed', async () => {
      const key = 'refused-by-the-work';
      const body = { ein: '000000001', amount: 20 };
      const first = await call(env.app, 'POST', '/v1/donations', { key: giver.key, body, headers: { 'idempotency-key': key } });
      assert.ok(first.status >= 400 && first.status < 500, JSON.stringify(first.body));
      const again = await call(env.app, 'POST', '/v1/donations', { key: giver.key, body, headers: { 'idempotency-key': key } });
      assert.equal(again.status, first.status);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.body.code, first.body.code);
      const other = await call(env.app, 'POST', '/v1/donations', { key: giver.key, body: { ein: EIN, amount: 20 }, headers: { 'idempotency-key': key } });
      assert.equal(other.body.code, 'idempotency_key_reused');
    });

    test('a donation whose key holds a record kept past its time is made afresh, not refused', async () => {
      const key = 'expired-record';
      const longAgo = new Date(Date.now() - (env.deps.config.idempotencyTtlHours + 1) * 3_600_000).toISOString();
      await env.deps.db
        .insertInto('idempotency_keys')
        .values({
          user_id: giver.user_id,
          key,
          request_hash: 'an-older-request',
          state: 'done',
          response_status: 201,
          response_body: '{"id":"old"}',
          locked_until: longAgo,
          created_at: longAgo,
          claim_token: 'the-older-attempt',
          resource: null,
        })
        .execute();
      const made = await call(env.app, 'POST', '/v1/donations', { key: giver.key, body: { ein: EIN, amount: 15 }, headers: { 'idempotency-key': key } });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const record = await row(giver, key);
      assert.equal(record.state, 'done');
      assert.equal(JSON.parse(record.response_body ?? '{}').value.id, made.body.id, 'the new answer is stored');
      const replayed = await call(env.app, 'POST', '/v1/donations', { key: giver.key, body: { ein: EIN, amount: 15 }, headers: { 'idempotency-key': key } });
      assert.equal(replayed.body.id, made.body.id);
      const donations = await env.deps.db.selectFrom('donations').select('id').where('user_id', '=', giver.user_id).where('amount_cents', '=', 1500).execute();
      assert.equal(donations.length, 1);
    });

    test("a keyed donation's first answer is the text its record stores, and each replay sends it again byte for byte", async () => {
      const key = 'one-text';
      const send = () =>
        env.app.inject({
          method: 'POST',
          url: '/v1/donations',
          headers: { 'x-api-key': giver.key, 'content-type': 'application/json', 'idempotency-key': key },
          payload: { ein: EIN, amount: 16 },
        });
      const first = await send();
      assert.equal(first.statusCode, 201, first.body);
      assert.equal(first.headers['content-type'], 'application/json; charset=utf-8');
      const stored = await row(giver, key);
      assert.equal(stored.state, 'done', 'the answer was stored with the work');
      assert.equal(stored.locked_until, stored.created_at, 'a record written with its work holds no lock');
      const record = JSON.parse(stored.response_body ?? '') as { content_type: string; location: string; value: unknown };
      assert.match(String(first.headers.location), /^\/v1\/users\/\d+\/donations\/\d+$/);
      assert.deepEqual(record, { content_type: 'application/json; charset=utf-8', location: first.headers.location, value: JSON.parse(first.body) });
      // The same text the route's schema makes of the donation: what an unkeyed request gets.
      const unkeyed = await call(env.app, 'POST', '/v1/donations', { key: giver.key, body: { ein: EIN, amount: 16 } });
      assert.deepEqual(Object.keys(JSON.parse(first.body) as object), Object.keys(unkeyed.body as object), "the fields in the schema's order");
      for (let i = 0; i < 2; i += 1) {
        const replay = await send();
        assert.equal(replay.headers['idempotent-replayed'], 'true');
        assert.equal(replay.statusCode, 201);
        assert.equal(replay.headers['content-type'], first.headers['content-type']);
        assert.equal(replay.headers.location, first.headers.location);
        assert.equal(replay.body, first.body, 'the first text, byte for byte');
      }
    });

    test('an attempt whose key was taken over rolls its whole transaction back', async () => {
      const key = 'taken-over';
      await env.deps.db
        .insertInto('idempotency_keys')
        .values({
          user_id: giver.user_id,
          key,
          request_hash: 'x',
          state: 'in_progress',
          response_status: null,
          response_body: null,
          locked_until: new Date().toISOString(),
          created_at: new Date().toISOString(),
          claim_token: 'the-newer-attempt',
          resource: null,
        })
        .execute();
      const before = await fingerprint(env.deps);
      await assert.rejects(
        createDonation(env.deps, giver.caller, { ein: EIN, amount_cents: 1400 }, { user_id: giver.user_id, key, token: 'the-older-attempt' }),
        (error: unknown) => error instanceof AppError && error.code === 'idempotency_key_in_use',
      );
      assert.deepEqual(await fingerprint(env.deps), before, 'no donation, no posting, no event');
      await createDonation(env.deps, giver.caller, { ein: EIN, amount_cents: 1400 }, { user_id: giver.user_id, key, token: 'the-newer-attempt' });
      assert.equal((await row(giver, key)).state, 'committed');
    });
  });
}
