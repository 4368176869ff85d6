// A node told it joins an existing platform (JOIN_PLATFORM) refuses a database that holds none,
// and writes nothing to it: a rollback that lost its DATABASE_URL_FILE, or a misspelt
// DATABASE_URL, must stop the node rather than serve an empty platform.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pino from 'pino';
import { sql } from 'kysely';
import { openPlatform } from '../src/platform.ts';
import { openDatabase } from '../src/db/database.ts';
import { BIN, engines, freshDatabase, makeUser, testConfig } from './harness.ts';

const silent = pino({ level: 'silent' });

async function tableCount(databaseUrl: string): Promise<number> {
  const handle = openDatabase({ url: databaseUrl });
  try {
    const found =
      handle.engine === 'sqlite'
        ? await sql<{ n: number }>`select count(*) as n from sqlite_master where type = 'table'`.execute(handle.db)
        : await sql<{ n: number }>`select count(*)::int as n from pg_tables where schemaname = any(current_schemas(false))`.execute(handle.db);
    return Number(found.rows[0]?.n);
  } finally {
    await handle.close();
  }
}

for (const { name: engine } of engines()) {
  describe(`joining a platform (${engine})`, () => {
    test('an empty database is refused and left empty; a migrated one without users too; with a user it opens', async () => {
      const { databaseUrl, cleanup } = await freshDatabase(engine);
      try {
        const joining = testConfig(databaseUrl, { joinPlatform: true });
        await assert.rejects(openPlatform(joining, { log: silent }), /JOIN_PLATFORM is true but .* holds no platform \(no users\)/);
        if (engine === 'sqlite') assert.equal(existsSync(databaseUrl.slice('sqlite:'.length)), false, 'no SQLite file was made');
        else assert.equal(await tableCount(databaseUrl), 0, 'no table was made');

        // A platform's schema without a single user (started once, nobody signed up) is no platform to join either.
        const first = await openPlatform(testConfig(databaseUrl), { log: silent });
        await first.close();
        const tables = await tableCount(databaseUrl);
        await assert.rejects(openPlatform(joining, { log: silent }), /holds no platform/);
        assert.equal(await tableCount(databaseUrl), tables);

        const owner = await openPlatform(testConfig(databaseUrl), { log: silent });
        await makeUser(owner.deps);
        await owner.close();
        const joined = await openPlatform(joining, { log: silent });
        await joined.close();
      } finally {
        await cleanup();
      }
    });
  });
}

test('almoner serve with JOIN_PLATFORM=true on a misspelt SQLite path exits 1 naming the cause, and makes no file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'almoner-join-'));
  try {
    const path = join(dir, 'almonr.sqlite');
    const run = promisify(execFile)(process.execPath, [BIN, 'serve'], { env: { ...process.env, DATABASE_URL: `sqlite:${path}`, JOIN_PLATFORM: 'true', PORT: '0' } });
    await assert.rejects(run, (error: { code: number; stderr: string }) => {
      assert.equal(error.code, 1);
      assert.match(error.stderr, /almoner: JOIN_PLATFORM is true but sqlite:.*almonr\.sqlite holds no platform/);
      return true;
    });
    assert.equal(existsSync(path), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
