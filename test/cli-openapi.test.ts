// The CLI (`almoner users create`) as a user runs it, and the OpenAPI
// document generated from the same schemas that validate and serialize.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { spawn } from 'node:child_process';
import { BIN, engines, openEnv, call, fingerprint, freshDatabase, runCli, type TestEnv } from './harness.ts';
import { VERSION } from '../src/version.ts';
import { WebClient } from './web-client.ts';

describe('almoner users create', () => {
  let dir: string;
  let url: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'almoner-cli-'));
    url = `sqlite:${join(dir, 'cli.sqlite')}`;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('creates a user with a fund and prints a working key', async () => {
    const res = await runCli(['users', 'create', '--name', 'Grace Hopper', '--city', 'Arlington'], url);
    assert.equal(res.code, 0, res.stderr);
    const key = /API key \(shown once\): (alm_live_[0-9A-Za-z]{40})/.exec(res.stdout)?.[1];
    assert.ok(key, res.stdout);
    assert.match(res.stdout, /Created user \d+ \(grace-hopper\) with fund \d+/);
    const env = await openEnv('sqlite', { databaseUrl: url });
    try {
      const me = await call(env.app, 'GET', '/v1/users/me', { key });
      assert.equal(me.status, 200);
      assert.equal(me.body.name, 'Grace Hopper');
      assert.equal(me.body.visible, true);
    } finally {
      await env.app.close();
      await env.platform.close();
    }
  });

  test('users create --email --password: the user signs in to the web app; a taken slug is said', async () => {
    const res = await runCli(['users', 'create', '--name', 'Grace Hopper', '--email', 'grace@example.org', '--password', 'correct horse battery'], url);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /Note: this user's profile is \/grace-hopper-2 \(not \/grace-hopper: taken, reserved or too long\)/);
    assert.match(res.stdout, /They sign in to the web app as grace@example.org/);
    const env = await openEnv('sqlite', { databaseUrl: url });
    try {
      const browser = new WebClient(env.app);
      const signedIn = await browser.signIn('grace@example.org');
      assert.equal(signedIn.status, 303);
      assert.equal(signedIn.location, '/dashboard');
    } finally {
      await env.app.close();
      await env.platform.close();
    }
    const half = await runCli(['users', 'create', '--name', 'No Password', '--email', 'np@example.org'], url);
    assert.equal(half.code, 2);
    assert.match(half.stderr, /--email and --password go together/);
  });

  test('--version names the release; a reader that goes away early ends the output quietly', async () => {
    const version = await runCli(['--version'], url);
    assert.equal(version.code, 0);
    assert.equal(version.stdout, `almoner ${VERSION} (Node ${process.versions.node})\n`);
    // `almoner users list | head -0`: the pipe's reader has closed before the first line is written.
    const child = spawn(process.execPath, [BIN, 'users', 'list'], { env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(stderr, '', 'no EPIPE stack');
    assert.equal(code, 0);
  });

  test('operator commands act on live users unless --sandbox asks for the twins', async () => {
    const created = await runCli(['users', 'create', '--name', 'Sandy Box', '--test'], url);
    assert.equal(created.code, 0, created.stderr);
    const live = await runCli(['users', 'list'], url);
    assert.match(live.stdout, /sandy-box /);
    assert.doesNotMatch(live.stdout, /-sandbox /, 'no twin among live users');
    const sandbox = await runCli(['users', 'list', '--sandbox'], url);
    assert.match(sandbox.stdout, /sandy-box-sandbox /);
    assert.doesNotMatch(sandbox.stdout, /grace-hopper /);
    const twinId = /^\s*(\d+)\s+sandy-box-sandbox/m.exec(sandbox.stdout)?.[1];
    assert.ok(twinId !== undefined);
    const suspend = await runCli(['users', 'suspend', twinId], url);
    assert.equal(suspend.code, 1, 'a twin is not a live user');
    assert.match(suspend.stderr, /no user/);
    const statement = await runCli(['users', 'statement', twinId, '--sandbox'], url);
    assert.equal(statement.code, 0, statement.stderr);
  });

  test('bad input: a clear message, exit code 2, nothing written', async () => {
    const env = await openEnv('sqlite', { databaseUrl: url });
    const before = await fingerprint(env.deps);
    await env.app.close();
    await env.platform.close();
    for (const args of [
      ['users', 'create'],
      ['users', 'create', '--name', ''],
      ['users', 'create', '--name', 'X', '--slug', 'bad slug!'],
      ['users', 'create', '--name', 'X', '--bogus'],
      ['users', 'explode'],
      ['nonsense'],
      // An option of another command is refused, not ignored.
      ['users', 'list', '--amount', '5', '--reason', 'nope'],
      ['donations', 'approve', '1', '--reason', 'why not'],
      ['scheduler', 'run', '--user', '1'],
      ['receipts', 'repair', '--yes'],
      ['admin', 'token', 'list', '--name', 'x'],
      ['apps', 'list', '--sandbox'],
      ['donations', 'waiting', '--status', 'lost'],
    ]) {
      const res = await runCli(args, url);
      assert.equal(res.code, 2, `${args.join(' ')}: ${res.stderr}`);
      // One line: what is wrong, and where the command's usage is.
      assert.match(res.stderr, /^almoner: .+ \(almoner (\S+ )?--help shows the usage\)\n$/, args.join(' '));
    }
    const wrongRun = await runCli(['payments', 'run', 'frob', '1'], url);
    assert.equal(wrongRun.code, 2);
    assert.match(wrongRun.stderr, /^almoner: unknown payments run command: frob \(list, open, .*\) \(almoner payments --help shows the usage\)\n$/);
    const unknown = await runCli(['frob'], url);
    assert.deepEqual([unknown.code, unknown.stderr], [2, 'almoner: unknown command: frob (almoner --help shows the usage)\n']);
    // --version and <command> --help answer without loading the program.
    const version = await runCli(['--version'], url);
    assert.match(version.stdout, /^almoner \d+\.\d+\.\d+(-dev)? \(Node 24\./);
    const help = await runCli(['payments', '--help'], url);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /payments run withdraw ID --reason TEXT/);
    assert.doesNotMatch(help.stdout, /^ {2}users/m);
    const unknownHelp = await runCli(['frobnicate', '--help'], url);
    assert.deepEqual([unknownHelp.code, /unknown command: frobnicate/.test(unknownHelp.stdout)], [2, true]);
    const refused = await runCli(['users', 'list', '--amount', '5', '--reason', 'nope'], url);
    assert.match(refused.stderr, /almoner users list does not take --amount, --reason \(it takes --page, --sandbox\)/);
    const again = await openEnv('sqlite', { databaseUrl: url });
    try {
      assert.deepEqual(await fingerprint(again.deps), before);
    } finally {
      await again.app.close();
      await again.platform.close();
    }
  });
});

const SPEC_PATHS: Array<[string, string]> = [
  ['get', '/v1/donations'],
  ['post', '/v1/donations'],
  ['get', '/v1/donations/{donation_id}'],
  ['delete', '/v1/donations/{donation_id}'],
  ['get', '/v1/users/{user_id}/donations'],
  ['post', '/v1/users/{user_id}/donations'],
  ['get', '/v1/users/{user_id}/donations/{donation_id}'],
  ['get', '/v1/gifts'],
  ['post', '/v1/gifts'],
  ['get', '/v1/gifts/{code}'],
  ['get', '/v1/non_profits'],
  ['get', '/v1/non_profits/{ein}'],
  ['get', '/v1/users/me'],
  ['get', '/v1/users/{user_id}'],
  ['get', '/v1/users/{user_id}/causes'],
  ['get', '/v1/users/me/balance'],
  ['get', '/v1/contributions'],
  ['get', '/v1/api_keys'],
  ['post', '/v1/api_keys'],
  ['delete', '/v1/api_keys/{id}'],
  ['post', '/v1/gifts/{code}/accept'],
  ['post', '/v1/gifts/{code}/claim'],
  ['post', '/v1/gifts/{code}/deny'],
  ['get', '/v1/events'],
  ['post', '/v1/scheduled_donations'],
  ['get', '/v1/scheduled_donations'],
  ['get', '/v1/scheduled_donations/{id}'],
  ['delete', '/v1/scheduled_donations/{id}'],
  ['post', '/v1/sandbox/deposits'],
  ['post', '/v1/sandbox/advance'],
  ['get', '/admin/v1/users'],
  ['post', '/admin/v1/donations/batch'],
  ['get', '/admin/v1/check'],
];

for (const { name: engine } of engines().slice(0, 1)) {
  describe(`OpenAPI document (${engine})`, () => {
    let env: TestEnv;
    before(async () => {
      env = await openEnv(engine);
    });
    after(async () => env.close());

    test('/openapi.json is OpenAPI 3.1 with every endpoint, its schemas, and the key scheme', async () => {
      const res = await call(env.app, 'GET', '/openapi.json');
      assert.equal(res.status, 200);
      const doc = res.body;
      assert.equal(doc.openapi, '3.1.0');
      for (const [method, path] of SPEC_PATHS) assert.ok(doc.paths[path]?.[method], `${method.toUpperCase()} ${path} is documented`);
      assert.equal(
        Object.keys(doc.paths).some((p: string) => p.startsWith('/public')),
        false,
        'the alias is not documented twice',
      );
      for (const name of ['Problem', 'NonProfit', 'OwnDonation', 'UserDonation', 'Gift', 'Profile', 'Balance', 'Contribution', 'Cause']) {
        assert.ok(doc.components.schemas[name], `schema ${name}`);
      }
      assert.deepEqual(doc.components.securitySchemes.ApiKey, { type: 'apiKey', in: 'header', name: 'X-Api-Key' });
      const create = doc.paths['/v1/donations'].post;
      assert.deepEqual(create.requestBody.content['application/json'].schema.required.sort(), ['amount', 'ein']);
      assert.ok(create.responses['201']);
      assert.ok(create.responses['422']);
    });

    test('/docs is the donor API reference, rendered on the server; the operator API is apart at /docs/operators', async () => {
      const donor = await env.app.inject({ method: 'GET', url: '/docs' });
      assert.equal(donor.statusCode, 200);
      assert.match(String(donor.headers['content-type']), /^text\/html/);
      const page = donor.body;
      assert.match(page, /<h1>API reference<\/h1>/);
      // Every donor route, with its fields, in the page itself (no script renders it).
      for (const path of ['/v1/donations', '/v1/donations/{donation_id}', '/v1/gifts/{code}/claim', '/v1/users/me/balance', '/v1/non_profits'])
        assert.ok(page.includes(`<code>${path}</code>`), path);
      assert.match(page, /<code>amount<\/code> <span class="required">required<\/span>/);
      assert.match(page, /one of public, private/);
      assert.ok(!page.includes('/admin/v1/'), 'the operator API is not on the donor page');
      assert.ok(page.includes('href="/docs/operators"'));
      const operators = await env.app.inject({ method: 'GET', url: '/docs/operators' });
      assert.equal(operators.statusCode, 200);
      for (const path of ['/admin/v1/donations/{id}/approve', '/admin/v1/contributions', '/admin/v1/audit']) assert.ok(operators.body.includes(`<code>${path}</code>`), path);
      assert.ok(!operators.body.includes('<code>/v1/donations</code>'));
      assert.equal((await env.app.inject({ method: 'GET', url: '/docs/' })).statusCode, 200, 'with a trailing slash too');
    });
  });
}

/**
 * `almoner <args>` run with a 300 ms statement timeout while `locker` holds `table` exclusively
 * for `holdMs`: asserts the command is still waiting when the table is released, then its result.
 */
async function behindHeldTable(locker: pg.Client, table: string, holdMs: number, args: string[], databaseUrl: string) {
  await locker.query('begin');
  await locker.query(`lock table ${table} in access exclusive mode`);
  const running = runCli(args, databaseUrl, { DB_STATEMENT_TIMEOUT_MS: '300' });
  let finished = false;
  void running.then(() => {
    finished = true;
  });
  await new Promise((resolve) => setTimeout(resolve, holdMs));
  assert.equal(finished, false, `almoner ${args.join(' ')} waits for the table`);
  await locker.query('commit');
  return running;
}

describe('almoner check', () => {
  test(
    'on PostgreSQL, runs without the statement timeout that bounds requests: a table held by another session delays it, never fails it',
    { skip: process.env.TEST_DATABASE_URL ? false : 'TEST_DATABASE_URL is not set' },
    async () => {
      const { databaseUrl, cleanup } = await freshDatabase('postgres');
      const locker = new pg.Client({ connectionString: databaseUrl });
      try {
        const env = await openEnv('postgres', { databaseUrl });
        await env.app.close();
        await env.platform.close();
        await locker.connect();
        // Held for far longer than the 300 ms the check is configured with.
        const result = await behindHeldTable(locker, 'donations', 3000, ['check'], databaseUrl);
        assert.equal(result.code, 0, result.stderr);
        assert.match(result.stdout, /All invariants hold/);
      } finally {
        await locker.end();
        await cleanup();
      }
    },
  );

  test('passes on a sound ledger and reports each broken invariant, exiting 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'almoner-check-'));
    const url = `sqlite:${join(dir, 'check.sqlite')}`;
    try {
      const env = await openEnv('sqlite', { databaseUrl: url });
      const { makeUser, fund, makeNonProfit } = await import('./harness.ts');
      await makeNonProfit(env.deps, { ein: '261544963', name: 'Vermont Foodbank' });
      const u = await makeUser(env.deps);
      await fund(env.deps, u, 10_000);
      await call(env.app, 'POST', '/v1/donations', { key: u.key, body: { amount: 20, ein: '261544963' } });
      await env.app.close();
      await env.platform.close();
      const good = await runCli(['check'], url);
      assert.equal(good.code, 0, good.stderr);
      assert.match(good.stdout, /All invariants hold/);

      // Break it the way a bug or a hand edit would: a cached balance and a donation's state.
      const broken = await openEnv('sqlite', { databaseUrl: url });
      await broken.deps.db.updateTable('ledger_accounts').set({ balance_cents: 123 }).where('fund_id', '=', u.fund_id).where('kind', '=', 'portfolio').execute();
      await broken.deps.db.updateTable('donations').set({ status: 'completed' }).execute();
      await broken.app.close();
      await broken.platform.close();
      const bad = await runCli(['check'], url);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /FAIL {2}every balance equals its postings.*\n.*portfolio: balance 123 but its postings sum to 0/);
      assert.match(bad.stderr, /donation 1 \(completed\): 2000 cents on reserved, should be 0/);
      assert.match(bad.stderr, /Some invariants do not hold/);

      // Each run is kept, for the metrics of every node: the sound one, then the broken one.
      const after = await openEnv('sqlite', { databaseUrl: url });
      const runs = await after.deps.db.selectFrom('check_runs').select(['failed', 'checked', 'release']).orderBy('id').execute();
      await after.close();
      assert.equal(runs.length, 2);
      assert.deepEqual(
        runs.map((r) => r.failed),
        [0, (bad.stderr.match(/^FAIL/gm) ?? []).length],
      );
      assert.ok((runs[1]?.failed ?? 0) >= 2);
      assert.ok(runs.every((r) => r.checked > 10 && r.release === VERSION));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('almoner ledger', () => {
  test('checkpoint and export tell their progress on stderr; an export appears only once whole, and a failed one leaves nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'almoner-ledger-out-'));
    const url = `sqlite:${join(dir, 'ledger.sqlite')}`;
    try {
      const env = await openEnv('sqlite', { databaseUrl: url });
      const { makeUser, fund } = await import('./harness.ts');
      await fund(env.deps, await makeUser(env.deps), 10_000);
      await fund(env.deps, await makeUser(env.deps), 20_000);
      await env.app.close();
      await env.platform.close();
      const made = await runCli(['ledger', 'checkpoint'], url);
      assert.equal(made.code, 0, made.stderr);
      assert.match(made.stdout, /Checkpoint of the live log at size 2:/);
      const out = join(dir, 'live.jsonl');
      const exported = await runCli(['ledger', 'export', '--out', out], url);
      assert.equal(exported.code, 0, exported.stderr);
      assert.match(exported.stderr, /^written 1 entries of the live log\.\.\.$/m, 'the first count at once');
      const lines = readFileSync(out, 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as { leaf_index: number });
      assert.deepEqual(
        lines.map((l) => l.leaf_index),
        [0, 1],
      );
      assert.deepEqual(
        readdirSync(dir).filter((f) => f.endsWith('.partial')),
        [],
        'nothing half written beside it',
      );
      // The file cannot take the export's place (a directory is there): the command fails and leaves neither.
      const taken = join(dir, 'taken');
      mkdirSync(taken);
      const refused = await runCli(['ledger', 'export', '--out', taken], url);
      assert.notEqual(refused.code, 0);
      assert.deepEqual(
        readdirSync(dir).filter((f) => f.endsWith('.partial')),
        [],
      );
      assert.deepEqual(readdirSync(taken), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test(
    'on PostgreSQL, `ledger checkpoint` and `ledger export` take up and read the whole log without the statement timeout: its table held by another session delays them, never fails them',
    { skip: process.env.TEST_DATABASE_URL ? false : 'TEST_DATABASE_URL is not set' },
    async () => {
      const { databaseUrl, cleanup } = await freshDatabase('postgres');
      const locker = new pg.Client({ connectionString: databaseUrl });
      const dir = mkdtempSync(join(tmpdir(), 'almoner-ledger-cli-'));
      try {
        const env = await openEnv('postgres', { databaseUrl });
        const { makeUser, fund } = await import('./harness.ts');
        await fund(env.deps, await makeUser(env.deps), 10_000);
        await env.app.close();
        await env.platform.close();
        await locker.connect();
        for (const args of [
          ['ledger', 'checkpoint'],
          ['ledger', 'export', '--out', join(dir, 'live.jsonl')],
        ]) {
          // The log's places held for far longer than the 300 ms the command is configured with.
          const result = await behindHeldTable(locker, 'ledger_places', 1500, args, databaseUrl);
          assert.equal(result.code, 0, result.stderr);
          assert.match(result.stdout, args[1] === 'checkpoint' ? /Checkpoint of the live log at size 1:/ : /1 entries of the live log written to/);
          // The entry the sequencer takes (PostgreSQL's writer leaves its entries waiting), told as it goes.
          if (args[1] === 'checkpoint') assert.match(result.stderr, /^taken 1 entries into the live log\.\.\.$/m);
        }
      } finally {
        await locker.end();
        rmSync(dir, { recursive: true, force: true });
        await cleanup();
      }
    },
  );
});
