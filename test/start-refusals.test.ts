// What stops a node at start instead of running it on the wrong database:
// a DATABASE_URL of no known engine, and a schema newer than the release.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { engines, freshDatabase, runCli } from './harness.ts';
import { openDatabase } from '../src/db/database.ts';
import { checkNewerSchema, migrate, MIGRATION_NAMES } from '../src/db/migrate.ts';

const BIN = new URL('../bin/almoner.js', import.meta.url).pathname;

test('a mistyped DATABASE_URL stops `almoner migrate` and `serve` with the variable named, and creates no file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'almoner-url-'));
  try {
    for (const url of ['postgress://postgres@127.0.0.1:5432/test', 'mysql://x']) {
      for (const args of [['migrate'], ['serve']]) {
        const run = await promisify(execFile)(process.execPath, [BIN, ...args], { cwd: dir, env: { ...process.env, DATABASE_URL: url, PORT: '0' } }).then(
          () => ({ code: 0, stderr: '' }),
          (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
        );
        assert.equal(run.code, 1, `${args[0]} with ${url}`);
        assert.match(run.stderr, /^almoner: DATABASE_URL must start with sqlite:/m);
      }
    }
    assert.deepEqual(readdirSync(dir), [], 'nothing was created');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('in production, `serve` refuses placeholder sponsor details, naming each; elsewhere it warns at start', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'almoner-sponsor-'));
  try {
    const env = {
      ...process.env,
      DATABASE_URL: `sqlite:${join(dir, 'a.sqlite')}`,
      PORT: '0',
      ALMONER_ENV: 'production',
      SPONSOR_NAME: 'Green Valley Giving Fund',
      SPONSOR_BANK: '',
    };
    for (const name of ['SPONSOR_EIN', 'SPONSOR_ADDRESS', 'SPONSOR_BROKERAGE', 'SPONSOR_CRYPTO']) delete (env as Record<string, string | undefined>)[name];
    const run = await promisify(execFile)(process.execPath, [BIN, 'serve'], { cwd: dir, env }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /^almoner: SPONSOR_EIN, SPONSOR_ADDRESS, SPONSOR_BANK, SPONSOR_BROKERAGE, SPONSOR_CRYPTO must be set when ALMONER_ENV=production: donors' instructions for sending money and their receipts would show placeholders/m,
    );
    assert.deepEqual(readdirSync(dir), [], 'refused before opening the database');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const { databaseUrl, cleanup } = await freshDatabase('sqlite');
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, PORT: '0', SCHEDULER_INTERVAL_MS: '0', SANDBOX_TICK_MS: '0', ALMONER_ENV: 'development' };
    for (const name of Object.keys(env)) if (name.startsWith('SPONSOR_')) delete env[name];
    const server = spawn(process.execPath, [BIN, 'serve'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    await new Promise<void>((resolve) =>
      server.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        if (/listening/i.test(out)) resolve();
      }),
    );
    server.kill('SIGTERM');
    const warning = out.split('\n').find((line) => line.includes('placeholder sponsor details'));
    assert.ok(warning !== undefined, out);
    assert.equal((JSON.parse(warning) as { level: number }).level, 40, 'a warning');
    assert.match(warning, /set SPONSOR_NAME, SPONSOR_EIN, SPONSOR_ADDRESS, SPONSOR_BANK, SPONSOR_BROKERAGE, SPONSOR_CRYPTO/);
  } finally {
    await cleanup();
  }
});

for (const { name: engine } of engines()) {
  test(`an older release runs on a schema a newer one only expanded, and refuses one it contracted, naming the migration (${engine})`, async () => {
    const { databaseUrl, cleanup } = await freshDatabase(engine);
    try {
      const handle = openDatabase({ url: databaseUrl });
      try {
        await migrate(handle);
        // This release, pretending to be the one before 014 (every migration since only adds): it runs, and says so.
        const warnings: string[] = [];
        const before014 = MIGRATION_NAMES.slice(0, MIGRATION_NAMES.indexOf('014_operator_tokens'));
        await checkNewerSchema(handle, before014, (m) => warnings.push(m));
        const newer = MIGRATION_NAMES.slice(MIGRATION_NAMES.indexOf('014_operator_tokens'));
        assert.ok((warnings[0] ?? '').includes(`newer migrations (${newer.join(', ')}) that keep this release working`), warnings[0]);
        // The release before 013 (which contracted: money moved into two books) is refused, 013 named.
        await assert.rejects(
          checkNewerSchema(handle, MIGRATION_NAMES.slice(0, MIGRATION_NAMES.indexOf('013_books'))),
          /the database has migration 013_books, which this release of Almoner does not know \(its last is 012_expect\) and which older releases must not run on/,
        );
        // A future migration that breaks older releases stops this one, at start and in the CLI.
        await sql`insert into schema_migrations (name, applied_at) values ('099_from_the_future', '2027-01-01T00:00:00Z')`.execute(handle.db);
        await sql`insert into schema_breaks (name) values ('099_from_the_future')`.execute(handle.db);
        await assert.rejects(
          migrate(handle),
          new RegExp(`the database has migration 099_from_the_future, which this release of Almoner does not know \\(its last is ${MIGRATION_NAMES.at(-1)}\\)`),
        );
      } finally {
        await handle.close();
      }
      const cli = await runCli(['migrate'], databaseUrl);
      assert.equal(cli.code, 1);
      assert.match(cli.stderr, /099_from_the_future/);
    } finally {
      await cleanup();
    }
  });
}

for (const { name: engine } of engines()) {
  test(`a port it cannot bind (public or admin) stops \`almoner serve\` at once with a non-zero exit (${engine})`, async () => {
    const { createServer } = await import('node:net');
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = String((taken.address() as { port: number }).port);
    const { databaseUrl, cleanup } = await freshDatabase(engine);
    try {
      for (const env of [{ PORT: port }, { PORT: '0', ADMIN_PORT: port }]) {
        const started = Date.now();
        const run = await promisify(execFile)(process.execPath, [BIN, 'serve'], {
          timeout: 30_000,
          env: { ...process.env, DATABASE_URL: databaseUrl, SCHEDULER_INTERVAL_MS: '0', LOG_LEVEL: 'silent', ...env },
        }).then(
          () => ({ code: 0, stderr: '', signal: null as string | null }),
          (error: { code: number; stderr: string; signal: string | null }) => ({ code: error.code, stderr: error.stderr, signal: error.signal }),
        );
        assert.equal(run.signal, null, `${JSON.stringify(env)}: it exited by itself, not killed at the timeout`);
        assert.equal(run.code, 1, JSON.stringify(env));
        assert.match(run.stderr, /^almoner: cannot listen: .*EADDRINUSE/m);
        assert.ok(Date.now() - started < 25_000);
      }
    } finally {
      taken.close();
      await cleanup();
    }
  });
}
