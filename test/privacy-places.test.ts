// Forgetting reaches every place a person's data lives, on both engines: the
// registry (src/modules/privacy/personal-data.ts) names every table of the
// schema and classifies every column that looks personal, so a new place
// fails here until it has a rule; then a person who used every feature is
// forgotten, and no text column of any table (but the receipts tax law keeps)
// nor any .eml file still holds their name, address, notes or messages.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { accountOf, call, engines, fund, makeNonProfit, makeUser, openEnv, type TestEnv } from './harness.ts';
import { WebClient } from './web-client.ts';
import { LOOKS_PERSONAL, PERSONAL_DATA } from '../src/modules/privacy/personal-data.ts';
import { forgetUser } from '../src/modules/privacy/index.ts';
import { createKeyForOwner } from '../src/modules/users/index.ts';
import { runNotify } from '../src/modules/notify/index.ts';
import { registerApp } from '../src/modules/apps/index.ts';
import { runCheck } from '../src/modules/check/index.ts';

/** Every table of the schema with its columns, read from the database itself. */
async function schemaOf(env: TestEnv): Promise<Map<string, string[]>> {
  const rows =
    env.engine === 'sqlite'
      ? (
          await sql<{
            t: string;
            c: string;
          }>`select m.name as t, p.name as c from sqlite_master m join pragma_table_info(m.name) p where m.type = 'table' and m.name not like 'sqlite_%'`.execute(env.deps.db)
        ).rows
      : (await sql<{ t: string; c: string }>`select table_name as t, column_name as c from information_schema.columns where table_schema = current_schema()`.execute(env.deps.db))
          .rows;
  const tables = new Map<string, string[]>();
  for (const r of rows) tables.set(r.t, [...(tables.get(r.t) ?? []), r.c]);
  return tables;
}

for (const { name: engine } of engines()) {
  describe(`forgetting reaches every place (${engine})`, () => {
    let env: TestEnv;
    const mailDir = mkdtempSync(join(tmpdir(), 'almoner-forget-mail-'));
    before(async () => {
      env = await openEnv(engine, { mailDir });
      await makeNonProfit(env.deps, { ein: '261544963', name: 'Vermont Foodbank' });
    });
    after(async () => {
      await env.close();
      rmSync(mailDir, { recursive: true, force: true });
    });

    test('every table is in the registry, and every column that looks personal is classified', async () => {
      const tables = await schemaOf(env);
      assert.deepEqual([...tables.keys()].sort(), Object.keys(PERSONAL_DATA).sort(), 'the registry names exactly the tables of the schema');
      for (const [table, columns] of tables) {
        const rule = PERSONAL_DATA[table];
        assert.ok(rule !== undefined, table);
        for (const column of [...rule.personal, ...(rule.notPersonal ?? [])]) assert.ok(columns.includes(column), `${table}.${column} exists`);
        for (const column of columns.filter((c) => LOOKS_PERSONAL.test(c))) {
          assert.ok(rule.personal.includes(column) || (rule.notPersonal ?? []).includes(column), `${table}.${column} looks personal: classify it in personal-data.ts`);
        }
      }
    });

    test('a person who used every feature is forgotten: no table (but receipts) and no mail file holds them', async () => {
      const { deps, app } = env;
      const email = `zelda-marker-${engine}@example.org`;
      const web = new WebClient(app);
      assert.equal((await web.signUp('Zelda Marker', email, 'the zelda pass phrase')).status, 303);
      const person = await accountOf(deps, email);
      await fund(deps, person, 100_000);
      const key = (await createKeyForOwner(deps, person.user_id, 'Zelda Marker key', 'live')).key;
      const other = await makeUser(deps, { name: 'Quentin Other' });
      await fund(deps, other, 100_000);
      const asPerson = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
        call(app, method, url, { key, headers, ...(body === undefined ? {} : { body }) });

      // Their webhooks, donations (one keyed), a recurring donation, a gift, an app they registered.
      assert.equal((await asPerson('POST', '/v1/webhook_endpoints', { url: 'https://marker-hooks.example.org/h', description: 'zelda marker hook' })).status, 201);
      assert.equal((await call(app, 'POST', '/v1/webhook_endpoints', { key: other.key, body: { url: 'https://quentin-hooks.example.org/h' } })).status, 201);
      assert.equal(
        (
          await asPerson(
            'POST',
            '/v1/donations',
            { ein: '261544963', amount: 10, note: 'note zelda marker', private_memo: 'memo zelda marker', designation: 'zelda marker fund', dedication: 'for zelda marker' },
            { 'idempotency-key': 'zelda-marker-1' },
          )
        ).status,
        201,
      );
      assert.equal((await asPerson('POST', '/v1/scheduled_donations', { ein: '261544963', amount: 10, frequency: 'Monthly', note: 'recurring zelda marker' })).status, 201);
      assert.equal(
        (await asPerson('POST', '/v1/gifts', { name: 'Friend of Zelda Marker', email: 'friend-marker@example.org', amount: 20, message: 'from zelda marker' })).status,
        201,
      );
      await registerApp(deps, person.user_id, {
        name: 'Zelda Marker App',
        redirect_uris: ['https://marker-app.example.org/cb'],
        logo_uri: 'https://marker-app.example.org/logo.png',
      });
      // Gifts others gave them: one to their address (still new), one they claim (the giver's donation names them).
      const toAddress = await call(app, 'POST', '/v1/gifts', { key: other.key, body: { name: 'Zelda Marker', email, amount: 25, message: 'for zelda marker' } });
      const claimed = await call(app, 'POST', '/v1/gifts', { key: other.key, body: { name: 'Zelda Marker', amount: 30, message: 'claim it, zelda marker' } });
      assert.deepEqual([toAddress.status, claimed.status], [201, 201]);
      assert.equal((await asPerson('POST', `/v1/gifts/${String(claimed.body.code)}/claim`, { ein: '261544963' })).status, 200);
      // A reset link, a failed sign-in, mail sent (written as .eml files), webhooks attempted.
      const visitor = new WebClient(app);
      await visitor.get('/forgot');
      await visitor.post('/forgot', { email });
      assert.equal((await new WebClient(app).signIn(email, 'not the pass phrase')).status, 401);
      await runNotify(deps);
      const files = () => readdirSync(mailDir).map((f) => readFileSync(join(mailDir, f), 'utf8'));
      assert.ok(
        files().some((f) => f.includes(email)),
        'mail to them was written',
      );
      const holders = async () => {
        const found: string[] = [];
        for (const [table, columns] of await schemaOf(env)) {
          if (PERSONAL_DATA[table]?.keptByLaw === true) continue;
          const rows = (await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(deps.db)).rows;
          for (const row of rows) {
            for (const column of columns) {
              const value = row[column];
              if (typeof value === 'string' && /zelda|marker-app|marker-hooks/i.test(value)) found.push(`${table}.${column}: ${value.slice(0, 80)}`);
            }
          }
        }
        return found;
      };
      assert.ok((await holders()).length >= 10, 'the person is in many places before');

      await forgetUser(deps, person.user_id, 'test:forget');
      assert.deepEqual(await holders(), [], 'no place still holds them');
      assert.deepEqual(
        files().filter((f) => /zelda/i.test(f) || f.includes(email)),
        [],
        'no .eml file still holds them',
      );
      assert.deepEqual(
        (await runCheck(deps)).flatMap((c) => c.failures),
        [],
        'the books still hold',
      );
    });
  });
}
