// Races for the last dollars, over real HTTP: 200 parallel donations against
// a fund that can afford 50 give exactly 50 scheduled and 150 waiting, and
// 100 parallel gifts against a fund that can afford 10 give exactly 10.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { engines, openEnv, makeUser, fund, makeNonProfit, assertLedgerBalanced, lockWaiters, until, type TestEnv } from './harness.ts';
import { openPlatform } from '../src/platform.ts';
import { buildApp } from '../src/app.ts';
import { createDonation, donationWriterStats } from '../src/modules/donations/index.ts';
import { createSchedule, runScheduler } from '../src/modules/scheduled/index.ts';
import { keyWriteStats } from '../src/modules/idempotency/index.ts';
import { lockFundAccounts } from '../src/modules/ledger/index.ts';
import type { AppError } from '../src/shared/errors.ts';
import { bumpRecordsEpoch } from '../src/modules/nonprofits/nonprofits.store.ts';

for (const { name: engine } of engines()) {
  describe(`concurrency on ${engine}`, () => {
    let env: TestEnv;
    let base: string;

    before(async () => {
      env = await openEnv(engine);
      await makeNonProfit(env.deps, { ein: '261544963', name: 'Vermont Foodbank' });
      await env.app.listen({ host: '127.0.0.1', port: 0 });
      base = `http://127.0.0.1:${(env.app.server.address() as AddressInfo).port}`;
    });
    after(async () => env.close());

    /**
     * Another node holds the fund's lock (PostgreSQL): `first`'s transaction waits for it, the
     * requests of `rest` queue behind it and then share the next transaction.
     */
    async function behindAnotherNode<T>(fundId: number, first: () => Promise<T>, rest: () => Array<Promise<T>>): Promise<Array<PromiseSettledResult<T>>> {
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let locked!: () => void;
      const isLocked = new Promise<void>((resolve) => {
        locked = resolve;
      });
      const blocker = env.deps.db.transaction().execute(async (trx) => {
        await lockFundAccounts(trx, fundId);
        locked();
        await held;
      });
      await isLocked;
      const waiting = first();
      await until("the first request's round to wait for the lock", async () => (await lockWaiters(env.deps.db)) > 0);
      const queued = rest();
      await until('the others to wait for the next round', () => donationWriterStats(env.deps).waiting >= queued.length);
      release();
      await blocker;
      return Promise.allSettled([waiting, ...queued]);
    }

    const post = (key: string, path: string, body: unknown) =>
      fetch(`${base}${path}`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(async (res) => ({
        status: res.status,
        body: (await res.json()) as { status?: string; code?: string },
      }));

    test('200 parallel donations against a fund that can afford 50', async () => {
      const user = await makeUser(env.deps);
      await fund(env.deps, user, 50 * 1000);
      const results = await Promise.all(Array.from({ length: 200 }, () => post(user.key, '/v1/donations', { amount: 10, ein: '261544963' })));
      assert.deepEqual([...new Set(results.map((r) => r.status))], [201]);
      const count = (s: string) => results.filter((r) => r.body.status === s).length;
      assert.equal(count('scheduled'), 50);
      assert.equal(count('waiting_for_funds'), 150);
      const accounts = await env.deps.db.selectFrom('ledger_accounts').select(['kind', 'balance_cents']).where('fund_id', '=', user.fund_id).execute();
      const balance = Object.fromEntries(accounts.map((a) => [a.kind, a.balance_cents]));
      assert.equal(balance.available, 0);
      assert.equal(balance.reserved, 50_000);
      await assertLedgerBalanced(env.deps);
    });

    // The smallest sequence that made the two writers' books differ on PostgreSQL: the batched
    // writer's ids taken ahead went to a donation made after another use case's (a recurring
    // donation's), so money that arrived promoted the newer one first (rules §7: oldest first).
    test('a donation made after a recurring one gets a larger id, and waits behind it for money', async () => {
      const user = await makeUser(env.deps);
      const donate = async (cents: number) => createDonation(env.deps, user.caller, { amount_cents: cents, ein: '261544963' });
      const first = await donate(1000); // the batched writer takes ids ahead here (PostgreSQL)
      await createSchedule(env.deps, user.caller, { ein: '261544963', amount_cents: 2000, frequency: 'OneTime' });
      assert.equal((await runScheduler(env.deps)).created, 1);
      const recurring = await env.deps.db
        .selectFrom('donations')
        .select(['id', 'status'])
        .where('fund_id', '=', user.fund_id)
        .where('scheduled_donation_id', 'is not', null)
        .executeTakeFirstOrThrow();
      const last = await donate(2000);
      assert.deepEqual([first.status, recurring.status, last.status], ['waiting_for_funds', 'waiting_for_funds', 'waiting_for_funds']);
      assert.ok(first.id < recurring.id && recurring.id < last.id, `ids follow the order they were made: ${first.id}, ${recurring.id}, ${last.id}`);
      await fund(env.deps, user, 3000); // covers the first two, oldest first
      const statuses = await env.deps.db.selectFrom('donations').select(['id', 'status']).where('fund_id', '=', user.fund_id).orderBy('id').execute();
      assert.deepEqual(
        statuses.map((d) => d.status),
        ['scheduled', 'scheduled', 'waiting_for_funds'],
      );
    });

    test('200 parallel donations of different amounts share transactions; none waits that the fund could hold', async () => {
      const user = await makeUser(env.deps);
      await fund(env.deps, user, 2_000 * 100);
      const before = donationWriterStats(env.deps);
      const amounts = Array.from({ length: 200 }, (_, i) => 10 + ((i * 37) % 41)); // $10 to $50
      const results = await Promise.all(amounts.map((amount) => post(user.key, '/v1/donations', { amount, ein: '261544963' })));
      assert.deepEqual([...new Set(results.map((r) => r.status))], [201]);
      const after = donationWriterStats(env.deps);
      assert.equal(after.requests - before.requests, 200);
      assert.ok(after.transactions - before.transactions < 200, `200 requests in ${after.transactions - before.transactions} transactions`);
      const rows = await env.deps.db.selectFrom('donations').select(['status', 'amount_cents']).where('user_id', '=', user.user_id).execute();
      const held = rows.filter((r) => r.status === 'scheduled').reduce((sum, r) => sum + r.amount_cents, 0);
      const accounts = await env.deps.db.selectFrom('ledger_accounts').select(['kind', 'balance_cents']).where('fund_id', '=', user.fund_id).execute();
      const balance = Object.fromEntries(accounts.map((a) => [a.kind, a.balance_cents]));
      assert.equal(balance.reserved, held);
      assert.equal(balance.available, 200_000 - held);
      // Available money only shrinks while donations are created: one left waiting was larger than what remained when its turn came.
      for (const waiting of rows.filter((r) => r.status === 'waiting_for_funds'))
        assert.ok(waiting.amount_cents > (balance.available as number), `waiting ${waiting.amount_cents} with ${balance.available} available`);
      await assertLedgerBalanced(env.deps);
    });

    /** Idempotency-Key records in progress, each held by its claim's token (what the HTTP layer's claim writes). */
    async function holdKeys(claims: ReadonlyArray<{ user_id: number; key: string; token: string }>): Promise<void> {
      const now = new Date().toISOString();
      await env.deps.db
        .insertInto('idempotency_keys')
        .values(
          claims.map((claim) => ({
            user_id: claim.user_id,
            key: claim.key,
            request_hash: 'h',
            state: 'in_progress',
            response_status: null,
            response_body: null,
            locked_until: now,
            created_at: now,
            claim_token: claim.token,
            resource: null,
          })),
        )
        .execute();
    }

    test('in a shared transaction, a request whose Idempotency-Key was taken over fails alone', async () => {
      const user = await makeUser(env.deps);
      await fund(env.deps, user, 1_000 * 100);
      // Another attempt took the key over: it holds the claim under its own token.
      await holdKeys([{ user_id: user.user_id, key: 'taken-over', token: 'the-newer-attempt' }]);
      const caller = user.caller;
      const donate = () => createDonation(env.deps, caller, { amount_cents: 1000, ein: '261544963' });
      const stale = () => createDonation(env.deps, caller, { amount_cents: 1000, ein: '261544963' }, { user_id: user.user_id, key: 'taken-over', token: 'the-older-attempt' });
      const before = donationWriterStats(env.deps);
      let results: Array<PromiseSettledResult<unknown>>;
      if (engine === 'sqlite') {
        // The five reach the fund's queue in the same turn: one transaction.
        results = await Promise.allSettled([donate(), donate(), donate(), donate(), stale()]);
        assert.equal(donationWriterStats(env.deps).transactions - before.transactions, 1, 'all five in one transaction');
      } else {
        results = await behindAnotherNode(user.fund_id, donate, () => [donate(), donate(), donate(), stale()]);
        assert.equal(donationWriterStats(env.deps).transactions - before.transactions, 2, 'the last four in one transaction');
      }
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected'],
      );
      const refused = results[4] as PromiseRejectedResult;
      assert.equal((refused.reason as AppError).code, 'idempotency_key_in_use');
      const made = await env.deps.db
        .selectFrom('donations')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', user.user_id)
        .executeTakeFirstOrThrow();
      assert.equal(Number(made.n), 4, 'the other four were created, the refused one not');
      const key = await env.deps.db.selectFrom('idempotency_keys').selectAll().where('key', '=', 'taken-over').executeTakeFirstOrThrow();
      assert.equal(key.state, 'in_progress');
      assert.equal(key.resource, null);
      await assertLedgerBalanced(env.deps);
    });

    test('in a shared transaction, requests with Idempotency-Keys each record their own outcome; the one taken over fails alone', async () => {
      const user = await makeUser(env.deps);
      await fund(env.deps, user, 1_000 * 100);
      // Four attempts hold their keys; a fifth key was taken over by a newer attempt.
      const held = ['k1', 'k2', 'k3', 'k4'].map((key) => ({ user_id: user.user_id, key, token: `token-${key}` }));
      await holdKeys([...held, { user_id: user.user_id, key: 'k5', token: 'the-newer-attempt' }]);
      const donate = (claim: { user_id: number; key: string; token: string }) => createDonation(env.deps, user.caller, { amount_cents: 1000, ein: '261544963' }, claim);
      const stale = () => donate({ user_id: user.user_id, key: 'k5', token: 'the-older-attempt' });
      const before = donationWriterStats(env.deps);
      let results: Array<PromiseSettledResult<unknown>>;
      if (engine === 'sqlite') {
        results = await Promise.allSettled([...held.map(donate), stale()]);
        assert.equal(donationWriterStats(env.deps).transactions - before.transactions, 1, 'all five in one transaction');
      } else {
        const [first, ...rest] = held;
        results = await behindAnotherNode(
          user.fund_id,
          () => donate(first!),
          () => [...rest.map(donate), stale()],
        );
        assert.equal(donationWriterStats(env.deps).transactions - before.transactions, 2, 'the last four in one transaction');
      }
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected'],
      );
      assert.equal(((results[4] as PromiseRejectedResult).reason as AppError).code, 'idempotency_key_in_use');
      const ids = results.slice(0, 4).map((r) => ((r as PromiseFulfilledResult<unknown>).value as { id: number }).id);
      const keys = await env.deps.db.selectFrom('idempotency_keys').select(['key', 'state', 'resource']).where('user_id', '=', user.user_id).orderBy('key').execute();
      assert.deepEqual(keys, [...ids.map((id, i) => ({ key: `k${i + 1}`, state: 'committed', resource: `donation:${id}` })), { key: 'k5', state: 'in_progress', resource: null }]);
      const made = await env.deps.db
        .selectFrom('donations')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', user.user_id)
        .executeTakeFirstOrThrow();
      assert.equal(Number(made.n), 4);
      await assertLedgerBalanced(env.deps);
    });

    test('a request refused for its Idempotency-Key holds nothing: the next donation of its fund is decided, and answered, without it', async () => {
      const user = await makeUser(env.deps);
      // Enough for the first donation and one more of $10.
      await fund(env.deps, user, 2_000);
      await holdKeys([
        { user_id: user.user_id, key: 'stale', token: 'the-newer-attempt' },
        { user_id: user.user_id, key: 'next', token: 'token-next' },
      ]);
      // The route's claim: the answer stored with the record is the donation as the use case shows it.
      const answer = (view: unknown) => ({ status: 201, response: JSON.stringify(view) });
      const donate = (claim?: { user_id: number; key: string; token: string }) =>
        createDonation(env.deps, user.caller, { amount_cents: 1000, ein: '261544963' }, claim === undefined ? undefined : { ...claim, answer });
      const stale = () => donate({ user_id: user.user_id, key: 'stale', token: 'the-older-attempt' });
      const next = () => donate({ user_id: user.user_id, key: 'next', token: 'token-next' });
      // The first takes $10 (alone on SQLite, behind another node's lock on PostgreSQL); the refused
      // request comes before the next in the round that follows.
      const results =
        engine === 'sqlite'
          ? [await Promise.allSettled([donate()]), await Promise.allSettled([stale(), next()])].flat()
          : await behindAnotherNode(
              user.fund_id,
              () => donate(),
              () => [stale(), next()],
            );
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      assert.equal(((results[1] as PromiseRejectedResult).reason as AppError).code, 'idempotency_key_in_use');
      const made = (results[2] as PromiseFulfilledResult<{ id: number; status: string }>).value;
      assert.equal(made.status, 'scheduled', 'the refused request holds none of the money');
      const record = await env.deps.db.selectFrom('idempotency_keys').selectAll().where('user_id', '=', user.user_id).where('key', '=', 'next').executeTakeFirstOrThrow();
      assert.equal(record.state, 'done');
      assert.equal(record.resource, `donation:${made.id}`);
      assert.equal((JSON.parse(record.response_body ?? '{}') as { status: string }).status, 'scheduled', 'the stored answer is what was made');
      const stored = await env.deps.db.selectFrom('idempotency_keys').selectAll().where('user_id', '=', user.user_id).where('key', '=', 'stale').executeTakeFirstOrThrow();
      assert.deepEqual([stored.state, stored.claim_token, stored.resource], ['in_progress', 'the-newer-attempt', null]);
      await assertLedgerBalanced(env.deps);
    });

    // PostgreSQL refuses a NUL character in text (the HTTP edge refuses it before; the service is called directly here).
    if (engine === 'postgres')
      test('when a shared transaction fails, each request is tried alone: one bad request fails no other', async () => {
        const user = await makeUser(env.deps);
        await fund(env.deps, user, 1_000 * 100);
        const caller = user.caller;
        const donate = (note: string) => createDonation(env.deps, caller, { amount_cents: 1000, ein: '261544963', note });
        const before = donationWriterStats(env.deps);
        const results = await behindAnotherNode(
          user.fund_id,
          () => donate('first'),
          () => [donate('a'), donate('b\u0000'), donate('c')],
        );
        assert.deepEqual(
          results.map((r) => r.status),
          ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
        );
        // The first alone, then the three together (failed), then each of the three alone.
        assert.equal(donationWriterStats(env.deps).transactions - before.transactions, 5);
        const notes = await env.deps.db.selectFrom('donations').select('note').where('user_id', '=', user.user_id).orderBy('id').execute();
        assert.deepEqual(
          notes.map((n) => n.note),
          ['first', 'a', 'c'],
        );
        await assertLedgerBalanced(env.deps);
      });

    test("many funds' donations that arrive together share one round; a fund that cannot cover one never holds back another's", async () => {
      const users = [];
      for (let i = 0; i < 10; i++) {
        const user = await makeUser(env.deps);
        await fund(env.deps, user, i % 2 === 0 ? 100 * 100 : 15 * 100); // even: $100; odd: $15
        users.push(user);
      }
      const before = donationWriterStats(env.deps);
      const asked = users.flatMap((user, i) => [
        { user, ein: '261544963', cents: 1_000 },
        { user, ein: i === 3 ? '999999999' : '261544963', cents: 1_000 },
        { user, ein: '261544963', cents: 1_000 },
      ]);
      const results = await Promise.allSettled(asked.map((a) => createDonation(env.deps, a.user.caller, { amount_cents: a.cents, ein: a.ein })));
      const after = donationWriterStats(env.deps);
      assert.deepEqual([after.transactions - before.transactions, after.funds - before.funds, after.requests - before.requests], [1, 10, 30], 'one round for the ten funds');
      const outcome = (r: PromiseSettledResult<{ status: string }>) => (r.status === 'fulfilled' ? r.value.status : (r.reason as AppError).code);
      users.forEach((_, i) => {
        const mine = results.slice(i * 3, i * 3 + 3).map(outcome);
        if (i === 3) assert.deepEqual(mine, ['scheduled', 'non_profit_not_found', 'waiting_for_funds'], 'the unknown non-profit fails alone; $5 left does not cover $10');
        else if (i % 2 === 0) assert.deepEqual(mine, ['scheduled', 'scheduled', 'scheduled'], `fund ${i}`);
        else assert.deepEqual(mine, ['scheduled', 'waiting_for_funds', 'waiting_for_funds'], `fund ${i}: each fund decides from its own money`);
      });
      for (const [i, user] of users.entries()) {
        const accounts = await env.deps.db.selectFrom('ledger_accounts').select(['kind', 'balance_cents']).where('fund_id', '=', user.fund_id).execute();
        const balance = Object.fromEntries(accounts.map((a) => [a.kind, a.balance_cents]));
        assert.deepEqual([balance.available, balance.reserved], i % 2 === 0 ? [7_000, 3_000] : [500, 1_000], `fund ${i}`);
      }
      await assertLedgerBalanced(env.deps);
    });

    test('donations with Idempotency-Keys that arrive together: each key, its donation and its answer written by the round that makes it, each its own; a key sent twice at once makes one donation', async () => {
      const users = [];
      for (let i = 0; i < 8; i++) {
        const user = await makeUser(env.deps);
        await fund(env.deps, user, 100 * 100);
        users.push(user);
      }
      const send = (key: string, idempotencyKey: string, ein = '261544963') =>
        fetch(`${base}/v1/donations`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
          body: JSON.stringify({ amount: 10, ein }),
        }).then(async (res) => ({ status: res.status, replayed: res.headers.get('idempotent-replayed'), text: await res.text() }));
      const before = keyWriteStats(env.deps);
      const writerBefore = donationWriterStats(env.deps);
      const asked = users.flatMap((user, i) => [0, 1, 2].map((j) => ({ user, key: `order-${j}`, ein: i === 5 && j === 1 ? '999999999' : '261544963' })));
      const twice = { user: users[0]!, key: 'order-0', ein: '261544963' };
      const results = await Promise.all([...asked, twice].map((a) => send(a.user.key, a.key, a.ein)));
      const after = keyWriteStats(env.deps);
      const writerAfter = donationWriterStats(env.deps);
      // No claim and no answer of a statement of its own: the rounds wrote them with the donations (rules §11).
      assert.deepEqual([after.claims.items - before.claims.items, after.answers.items - before.answers.items], [0, 0], 'no key written apart from its round');
      const requests = writerAfter.requests - writerBefore.requests;
      assert.ok(
        writerAfter.transactions - writerBefore.transactions < requests,
        `the requests shared rounds (${writerAfter.transactions - writerBefore.transactions} for ${requests})`,
      );
      // Each request has its own answer: its own donation, or its own error.
      const made = results.slice(0, asked.length);
      made.forEach((r, n) => {
        if (n === 5 * 3 + 1) assert.deepEqual([r.status, (JSON.parse(r.text) as { code: string }).code], [404, 'non_profit_not_found']);
        else if (n !== 0) assert.equal(r.status, 201, `request ${n}`);
      });
      const ids = made.filter((r) => r.status === 201).map((r) => (JSON.parse(r.text) as { id: number }).id);
      assert.equal(new Set(ids).size, ids.length, 'a donation each');
      // The key sent twice at once: one donation; the other request is refused as in use, or replays it.
      const pair = [results[0]!, results.at(-1)!];
      const donationsOfFirst = await env.deps.db.selectFrom('donations').select('id').where('user_id', '=', users[0]!.user_id).execute();
      assert.equal(donationsOfFirst.length, 3, 'order-0 sent twice made one donation');
      if (pair.some((r) => r.status === 409)) assert.equal((JSON.parse(pair.find((r) => r.status === 409)!.text) as { code: string }).code, 'idempotency_key_in_use');
      else assert.deepEqual([pair[0]!.text === pair[1]!.text, pair.some((r) => r.replayed === 'true')], [true, true]);
      // Every stored answer replays byte for byte, the error's too.
      for (const [n, a] of asked.entries()) {
        const again = await send(a.user.key, a.key, a.ein);
        const first = n === 0 ? pair.find((r) => r.status === 201)! : made[n]!;
        assert.deepEqual([again.status, again.replayed, again.text], [first.status, 'true', first.text], `replay of request ${n}`);
      }
      await assertLedgerBalanced(env.deps);
    });

    test('gifts with Idempotency-Keys that arrive together claim their keys and store their answers in shared statements, each its own', async () => {
      const givers = [];
      for (let i = 0; i < 6; i++) {
        const user = await makeUser(env.deps);
        await fund(env.deps, user, 100 * 100);
        givers.push(user);
      }
      const send = (key: string, idempotencyKey: string) =>
        fetch(`${base}/v1/gifts`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
          body: JSON.stringify({ name: 'Ada', amount: 20 }),
        }).then(async (res) => ({ status: res.status, replayed: res.headers.get('idempotent-replayed'), text: await res.text() }));
      const before = keyWriteStats(env.deps);
      const asked = givers.flatMap((user) => [0, 1].map((j) => ({ user, key: `gift-${j}` })));
      const results = await Promise.all(asked.map((a) => send(a.user.key, a.key)));
      const after = keyWriteStats(env.deps);
      const claimed = after.claims.items - before.claims.items;
      assert.equal(claimed, asked.length, 'every request claimed its key');
      assert.ok(after.claims.writes - before.claims.writes < claimed, `claims shared statements (${after.claims.writes - before.claims.writes} for ${claimed})`);
      assert.ok(after.answers.writes - before.answers.writes < after.answers.items - before.answers.items, 'answers shared statements');
      assert.deepEqual(
        results.map((r) => r.status),
        asked.map(() => 201),
      );
      for (const [n, a] of asked.entries()) {
        const again = await send(a.user.key, a.key);
        assert.deepEqual([again.status, again.replayed, again.text], [201, 'true', results[n]!.text], `replay of gift ${n}`);
      }
    });

    test('in a shared transaction, a request for an unknown or ineligible non-profit fails alone', async () => {
      await makeNonProfit(env.deps, { ein: '010000001', name: 'Private Foundation', eligible: 0 });
      const user = await makeUser(env.deps);
      await fund(env.deps, user, 1_000 * 100);
      const caller = user.caller;
      const donate = (ein: string) => createDonation(env.deps, caller, { amount_cents: 1000, ein });
      const before = donationWriterStats(env.deps);
      const results = await Promise.allSettled([donate('261544963'), donate('999999999'), donate('261544963'), donate('010000001'), donate('261544963')]);
      assert.equal(donationWriterStats(env.deps).transactions - before.transactions, 1, 'all five in one transaction');
      assert.deepEqual(
        results.map((r) => (r.status === 'fulfilled' ? r.value.status : (r.reason as AppError).code)),
        ['scheduled', 'non_profit_not_found', 'scheduled', 'non_profit_ineligible', 'scheduled'],
      );
      const made = await env.deps.db.selectFrom('donations').select('id').where('user_id', '=', user.user_id).execute();
      assert.deepEqual(
        made.map((d) => d.id).sort((a, b) => a - b),
        results
          .filter((r) => r.status === 'fulfilled')
          .map((r) => r.value.id)
          .sort((a, b) => a - b),
      );
      await assertLedgerBalanced(env.deps);
    });

    if (engine === 'postgres') {
      test('a recipient a node remembers is checked against the directory when written: removed since, the donation is refused and nothing is written', async () => {
        await makeNonProfit(env.deps, { ein: '010000002', name: 'Soon Gone' });
        const user = await makeUser(env.deps);
        await fund(env.deps, user, 1_000 * 100);
        const donate = () => createDonation(env.deps, user.caller, { amount_cents: 1000, ein: '010000002' });
        assert.equal((await donate()).status, 'scheduled');
        const remembered = donationWriterStats(env.deps).remembered;
        assert.equal((await donate()).status, 'scheduled');
        assert.equal(donationWriterStats(env.deps).remembered, remembered + 1, 'the second round used the recipient it remembered');
        // The importer's removal, as markUnlisted makes it: the row and the records epoch in one transaction.
        await env.deps.db.transaction().execute(async (trx) => {
          await trx.updateTable('non_profits').set({ removed_at: '2026-02-01T00:00:00Z' }).where('ein', '=', '010000002').execute();
          await bumpRecordsEpoch(trx);
        });
        const count = async () => (await env.deps.db.selectFrom('donations').select('id').where('user_id', '=', user.user_id).execute()).length;
        const before = await count();
        const locked = donationWriterStats(env.deps).locked;
        await assert.rejects(donate(), (e: AppError) => e.code === 'non_profit_ineligible');
        assert.equal(donationWriterStats(env.deps).locked, locked + 1, 'the guarded write found the directory moved; the locked round read it again');
        assert.equal(await count(), before, 'no donation written');
        await assertLedgerBalanced(env.deps);
      });
    }

    test('100 parallel gifts against a fund that can afford 10', async () => {
      const user = await makeUser(env.deps);
      await fund(env.deps, user, 10 * 1800);
      const results = await Promise.all(Array.from({ length: 100 }, () => post(user.key, '/v1/gifts', { amount: 18, name: 'Someone' })));
      assert.equal(results.filter((r) => r.status === 201).length, 10);
      assert.equal(results.filter((r) => r.status === 422 && r.body.code === 'insufficient_funds').length, 90);
      await assertLedgerBalanced(env.deps);
    });

    // Many nodes share one PostgreSQL (an SQLite file is served by one process).
    if (engine === 'postgres')
      test('two nodes on one database: 200 donations spread over both, still exactly 50 scheduled', async () => {
        const second = await openPlatform(env.platform.deps.config, { log: pino({ level: 'silent' }) }); // its own pool, as another node has
        const secondApp = await buildApp(second.deps);
        await secondApp.listen({ host: '127.0.0.1', port: 0 });
        try {
          const bases = [base, `http://127.0.0.1:${(secondApp.server.address() as AddressInfo).port}`];
          const user = await makeUser(env.deps);
          await fund(env.deps, user, 50 * 1000);
          const results = await Promise.all(
            Array.from({ length: 200 }, (_, i) =>
              fetch(`${bases[i % 2]}/v1/donations`, {
                method: 'POST',
                headers: { 'x-api-key': user.key, 'content-type': 'application/json' },
                body: JSON.stringify({ amount: 10, ein: '261544963' }),
              }).then(async (res) => ({ status: res.status, body: (await res.json()) as { status?: string } })),
            ),
          );
          assert.deepEqual([...new Set(results.map((r) => r.status))], [201]);
          assert.equal(results.filter((r) => r.body.status === 'scheduled').length, 50);
          assert.equal(results.filter((r) => r.body.status === 'waiting_for_funds').length, 150);
          await assertLedgerBalanced(env.deps);
        } finally {
          await secondApp.close();
          await second.close();
        }
      });

    // On PostgreSQL a node remembers the balance it last wrote and writes without a lock, guarded
    // by a compare-and-set (db/bulk.ts runIfOneRow): the memory is a guess, checked, never trusted.
    if (engine === 'postgres')
      test("a balance another node moved: this node's memory of it is checked and the real balance decides", async () => {
        const second = await openPlatform(env.platform.deps.config, { log: pino({ level: 'silent' }) });
        try {
          const donor = async (dollars: number) => {
            const user = await makeUser(env.deps);
            await fund(env.deps, user, dollars * 100);
            const caller = user.caller;
            const donate = (deps: typeof env.deps, d: number) => createDonation(deps, caller, { amount_cents: d * 100, ein: '261544963' }).then((made) => made.status);
            return { user, donate };
          };
          const stats = () => donationWriterStats(env.deps);
          const before = stats();

          // The memory says there is enough; there is not.
          const one = await donor(100);
          assert.equal(await one.donate(env.deps, 60), 'scheduled'); // this node: $40 left
          assert.equal(await one.donate(second.deps, 30), 'scheduled'); // really $10 left
          assert.equal(await one.donate(env.deps, 20), 'waiting_for_funds', 'this node remembered $40; $10 decides');
          assert.equal(stats().moved - before.moved, 1, 'the guarded write found the balance moved and wrote nothing');
          // For a while that fund's batches take the lock at once instead of guessing again.
          const locked = stats().locked;
          assert.equal(await one.donate(env.deps, 10), 'scheduled');
          assert.equal(stats().locked - locked, 1);
          assert.equal(stats().moved - before.moved, 1);

          // The memory says there is not enough; there is.
          const two = await donor(100);
          assert.equal(await two.donate(env.deps, 90), 'scheduled'); // this node: $10 left
          await fund(second.deps, two.user, 50 * 100); // really $60 left
          assert.equal(await two.donate(env.deps, 30), 'scheduled', 'this node remembered $10; $60 decides');
          assert.equal(stats().moved - before.moved, 2);

          // One round of two funds, one of them moved by the other node: the guard of the round fails,
          // only that fund is noted as moved, and the locked transaction decides both from their real balances.
          const three = await donor(100);
          const four = await donor(100);
          assert.equal(await three.donate(env.deps, 50), 'scheduled');
          assert.equal(await four.donate(env.deps, 50), 'scheduled');
          assert.equal(await three.donate(second.deps, 40), 'scheduled'); // really $10 left, this node remembers $50
          const moved = stats().moved;
          const round = await Promise.all([three.donate(env.deps, 20), four.donate(env.deps, 20)]);
          assert.deepEqual(round, ['waiting_for_funds', 'scheduled']);
          assert.equal(stats().moved - moved, 1, 'only the fund another node moved');

          for (const [{ user }, available, reserved] of [
            [one, 0, 100],
            [two, 30, 120],
            [three, 10, 90],
            [four, 30, 70],
          ] as const) {
            const accounts = await env.deps.db.selectFrom('ledger_accounts').select(['kind', 'balance_cents']).where('fund_id', '=', user.fund_id).execute();
            const balance = Object.fromEntries(accounts.map((a) => [a.kind, a.balance_cents]));
            assert.deepEqual([balance.available, balance.reserved], [available * 100, reserved * 100]);
          }
          const counts = await env.deps.db
            .selectFrom('donations')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('user_id', 'in', [one.user.user_id, two.user.user_id, three.user.user_id, four.user.user_id])
            .executeTakeFirstOrThrow();
          assert.equal(Number(counts.n), 11, 'no write of a refused guess was kept');
          await assertLedgerBalanced(env.deps);
        } finally {
          await second.close();
        }
      });

    test('parallel cancels and creates on one fund keep the journal balanced and never overdraw', async () => {
      const user = await makeUser(env.deps);
      await fund(env.deps, user, 20 * 1000);
      const created = await Promise.all(Array.from({ length: 40 }, () => post(user.key, '/v1/donations', { amount: 10, ein: '261544963' })));
      const ids = created.map((r) => (r.body as { id?: number }).id);
      const work = [
        ...ids.slice(0, 30).map((id) => fetch(`${base}/v1/donations/${id}`, { method: 'DELETE', headers: { 'x-api-key': user.key } }).then((r) => r.status)),
        ...Array.from({ length: 30 }, () => post(user.key, '/v1/donations', { amount: 10, ein: '261544963' }).then((r) => r.status)),
      ];
      const statuses = await Promise.all(work);
      assert.ok(
        statuses.every((s) => s === 200 || s === 201),
        statuses.join(','),
      );
      const reserved = await env.deps.db
        .selectFrom('ledger_accounts')
        .select('balance_cents')
        .where('fund_id', '=', user.fund_id)
        .where('kind', '=', 'reserved')
        .executeTakeFirstOrThrow();
      const scheduled = await env.deps.db
        .selectFrom('donations')
        .select((eb) => eb.fn.sum<number>('amount_cents').as('s'))
        .where('fund_id', '=', user.fund_id)
        .where('status', '=', 'scheduled')
        .executeTakeFirstOrThrow();
      assert.equal(reserved.balance_cents, Number(scheduled.s ?? 0), 'the hold equals the scheduled donations');
      assert.ok(reserved.balance_cents <= 20_000);
      await assertLedgerBalanced(env.deps);
    });
  });
}
