// Explicit limits on PostgreSQL: a request that cannot get a connection in
// time gets 503 `unavailable` quickly (never a hang or a 500), and a
// statement over the timeout is cancelled.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { openEnv, makeUser, call, slowConnectsRetried, type TestEnv, type TestUser } from './harness.ts';

describe('connection pool and statement limits on postgres', { skip: process.env.TEST_DATABASE_URL === undefined && 'TEST_DATABASE_URL is not set' }, () => {
  let setup: TestEnv | undefined;
  let env: TestEnv | undefined;
  let user: TestUser;
  before(async () => {
    // The 300 ms under test is the wait for a busy pool's connection. It also bounds making a new
    // one, which on a loaded machine (CI, two test files at a time) can take longer: the database
    // is migrated and the user made at the default timeout, then the tight platform is opened on
    // it, tried again if its first connections were slow to come, and its connections (the pool's
    // one and the two shared lookup ones) made before the tests, which reuse them. The app's caches
    // stay cold, so the request under test needs the pool.
    setup = await openEnv('postgres');
    user = await makeUser(setup.deps);
    const databaseUrl = setup.deps.config.databaseUrl;
    env = await slowConnectsRetried(async () => {
      const tight = await openEnv('postgres', { databaseUrl, dbPoolMax: 1, dbConnectTimeoutMs: 300, dbStatementTimeoutMs: 1_000 });
      try {
        await sql`select 1`.execute(tight.deps.db);
        await Promise.all([1, 2].map(() => sql`select 1`.execute(tight.deps.lookups)));
        return tight;
      } catch (error) {
        await tight.close();
        throw error;
      }
    });
  });
  after(async () => {
    await env?.close();
    await setup?.close();
  });
  const opened = () => env ?? assert.fail('the tight platform did not open');

  test('with every connection busy, a request gets 503 unavailable in about the connect timeout', async () => {
    const { deps, app } = opened();
    const busy = deps.db.transaction().execute(async (trx) => {
      await sql`select pg_sleep(0.8)`.execute(trx);
    });
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    const res = await call(app, 'GET', '/v1/users/me', { key: user.key });
    const waited = Date.now() - started;
    await busy;
    assert.equal(res.status, 503, JSON.stringify(res.body));
    assert.equal(res.body.code, 'unavailable');
    assert.equal(res.headers['retry-after'], '1');
    assert.ok(waited < 700, `answered in ${waited} ms`);
    assert.equal((await call(app, 'GET', '/v1/users/me', { key: user.key })).status, 200, 'served again once a connection is free');
  });

  test('a statement over the statement timeout is cancelled', async () => {
    await assert.rejects(sql`select pg_sleep(2)`.execute(opened().deps.db), (e: { code?: string }) => e.code === '57014');
  });
});

describe('connection lifetime on postgres', { skip: process.env.TEST_DATABASE_URL === undefined && 'TEST_DATABASE_URL is not set' }, () => {
  let env: TestEnv;
  let user: TestUser;
  before(async () => {
    env = await openEnv('postgres', { dbPoolMax: 1, dbConnectionLifetimeS: 1 });
    user = await makeUser(env.deps);
  });
  after(async () => env?.close());

  const backend = async () => (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(env.deps.db)).rows[0]?.pid;

  test('a connection older than DB_CONNECTION_LIFETIME_S is replaced by a new one, and requests go on', async () => {
    const first = await backend();
    assert.equal(await backend(), first, 'the same connection while it is young');
    await new Promise((r) => setTimeout(r, 1_300));
    const second = await backend();
    assert.notEqual(second, first, 'a new server process after the lifetime');
    assert.equal((await call(env.app, 'GET', '/v1/users/me', { key: user.key })).status, 200);
  });
});
