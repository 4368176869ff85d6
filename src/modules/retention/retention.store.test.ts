// Every function of retention.store.ts on both engines: what is older than the
// age goes, what is younger stays.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeEachEngine, makeUser } from '../../../test/harness.ts';
import * as store from './retention.store.ts';

describeEachEngine('retention store', (env) => {
  test('each deletes what is dated before the age, and nothing younger', async () => {
    const { db } = env().deps;
    const user = await makeUser(env().deps);
    const claim = (key: string, created_at: string) => ({
      user_id: user.user_id,
      key,
      request_hash: 'h',
      state: 'done',
      response_status: 201,
      response_body: '{}',
      locked_until: created_at,
      created_at,
      claim_token: 't',
      resource: null,
    });
    await db
      .insertInto('idempotency_keys')
      .values([claim('old', '2026-01-01T00:00:00Z'), claim('new', '2026-01-03T00:00:00Z')])
      .execute();
    assert.equal(await store.deleteIdempotencyKeys(db, '2026-01-02T00:00:00Z'), 1);
    assert.deepEqual(
      (await db.selectFrom('idempotency_keys').select('key').where('user_id', '=', user.user_id).execute()).map((r) => r.key),
      ['new'],
    );

    const session = (id_hash: string, expires_at: string) => ({ id_hash, user_id: user.user_id, csrf_token: 'c', created_at: '2025-12-01T00:00:00Z', expires_at });
    await db
      .insertInto('web_sessions')
      .values([session('gone', '2026-01-01T00:00:00Z'), session('live', '2026-02-01T00:00:00Z')])
      .execute();
    assert.equal(await store.deleteExpiredSessions(db, '2026-01-10T00:00:00Z'), 1);
    assert.deepEqual(
      (await db.selectFrom('web_sessions').select('id_hash').where('user_id', '=', user.user_id).execute()).map((r) => r.id_hash),
      ['live'],
    );

    await db
      .insertInto('sign_in_failures')
      .values([
        { email: 'a@example.org', ip: '10.0.0.1', at: '2026-01-01T00:00:00Z' },
        { email: 'b@example.org', ip: '10.0.0.1', at: '2026-01-03T00:00:00Z' },
      ])
      .execute();
    assert.equal(await store.deleteSignInFailures(db, '2026-01-02T00:00:00Z'), 1);
    assert.deepEqual(
      (await db.selectFrom('sign_in_failures').select('email').execute()).map((r) => r.email),
      ['b@example.org'],
    );

    const event = (created_at: string, relayed = true) => ({
      user_id: user.user_id,
      type: 'gift.created',
      object_type: 'gift',
      object_id: 1,
      data: '{}',
      created_at,
      relayed_at: relayed ? created_at : null,
    });
    await db
      .insertInto('events')
      .values([event('2026-01-01T00:00:00Z'), event('2026-01-01T00:00:01Z'), event('2026-01-01T00:00:02Z'), event('2026-01-05T00:00:00Z'), event('2026-01-01T00:00:03Z', false)])
      .execute();
    // An old event whose mail still waits stays with it; one whose delivery was settled goes with its delivery and attempt.
    const [first, , third] = await db.selectFrom('events').select('id').where('user_id', '=', user.user_id).orderBy('id').execute();
    const at = '2026-01-01T00:00:00Z';
    await db
      .insertInto('mail_outbox')
      .values({
        event_id: third?.id ?? 0,
        kind: 'k',
        recipient: 'a@example.org',
        subject: 's',
        text: 't',
        html: 'h',
        status: 'pending',
        next_at: at,
        created_at: at,
        claimed_until: null,
        last_error: null,
        sent_at: null,
      })
      .execute();
    const endpoint = await db
      .insertInto('webhook_endpoints')
      .values({
        book: 'live',
        user_id: user.user_id,
        url: 'https://example.org/h',
        secret: 'whsec_x',
        created_at: at,
        updated_at: at,
        disabled_reason: null,
        previous_secret: null,
        previous_secret_until: null,
        failing_since: null,
        deleted_at: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const delivery = await db
      .insertInto('webhook_deliveries')
      .values({
        endpoint_id: endpoint.id,
        event_id: first?.id ?? 0,
        message_id: 'evt_1',
        type: 'gift.created',
        payload: '{}',
        status: 'succeeded',
        next_at: at,
        claimed_until: null,
        created_at: at,
        delivered_at: at,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('webhook_attempts')
      .values({ delivery_id: delivery.id, endpoint_id: endpoint.id, at, status_code: 200, duration_ms: 5, error: null, succeeded: 1 })
      .execute();
    assert.equal(await store.deleteEvents(db, '2026-01-02T00:00:00Z', 2), 2, 'a batch at most');
    assert.equal(await store.deleteEvents(db, '2026-01-02T00:00:00Z', 2), 0, 'not one whose mail waits, nor one not relayed');
    const left = await db.selectFrom('events').select('created_at').where('user_id', '=', user.user_id).orderBy('id').execute();
    assert.deepEqual(
      left.map((r) => r.created_at),
      ['2026-01-01T00:00:02Z', '2026-01-05T00:00:00Z', '2026-01-01T00:00:03Z'],
    );
    assert.equal((await db.selectFrom('webhook_deliveries').select('id').where('id', '=', delivery.id).execute()).length, 0, 'the settled delivery went with its event');
  });
});
