// `almoner demo` as the README's quick start runs it: what it prints (one address, a working key,
// the directory's size and the command for the national one) is true, and the organisations
// donors search for first are in its sample.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './oidc-rp.ts';
import { runCli } from './harness.ts';

const BIN = new URL('../bin/almoner.js', import.meta.url).pathname;

describe('almoner demo', () => {
  let demo: ChildProcess;
  let dir: string;
  let printed = '';

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'almoner-demo-'));
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: `sqlite:${join(dir, 'almoner.sqlite')}`, PORT: String(port), NO_COLOR: '1' };
    delete env.PUBLIC_URL;
    for (const name of Object.keys(env)) if (name.startsWith('SPONSOR_') || name.startsWith('ACH_') || name.startsWith('PAYEE_DATA_KEY')) delete env[name];
    demo = spawn(process.execPath, [BIN, 'demo'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise<void>((resolve, reject) => {
      demo.stdout?.on('data', (chunk: Buffer) => {
        printed += chunk.toString();
        if (printed.includes('Stop with Ctrl-C.')) resolve();
      });
      demo.on('exit', (code) => reject(new Error(`the demo exited (${code}): ${printed}`)));
    });
  });

  after(() => {
    demo?.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  test('one address everywhere, and the key it prints works there', async () => {
    const origins = new Set([...printed.matchAll(/https?:\/\/[^\s/'`]+/g)].map((m) => m[0]));
    assert.equal(origins.size, 1, `one address: ${[...origins].join(', ')}`);
    const [base] = [...origins];
    assert.match(base ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
    const key = /Demo API key for Ada Lovelace \(shown once\): (alm_live_\S+)/.exec(printed)?.[1] ?? '';
    const me = await fetch(`${base}/v1/users/me`, { headers: { 'x-api-key': key } });
    assert.equal(((await me.json()) as { name: string }).name, 'Ada Lovelace');
    const issuer = ((await (await fetch(`${base}/.well-known/openid-configuration`)).json()) as { issuer: string }).issuer;
    assert.equal(issuer, base, 'Login with Almoner discovers at the same address');
  });

  test('it says how many organisations it holds and how to load the national directory, as the README does', async () => {
    const count = /Directory: ([\d,]+) organisations/.exec(printed)?.[1];
    assert.ok(count !== undefined, printed);
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    assert.match(readme, new RegExp(`Its directory holds ${count} organisations`), 'the README gives the same number');
    const command = 'npx almoner nonprofits download && npx almoner nonprofits import data/irs/bmf';
    assert.ok(printed.includes(command) && readme.includes(command));
  });

  test('it says the sponsor details are placeholders, naming them', () => {
    assert.match(
      printed,
      /Sponsor details are placeholders \(SPONSOR_NAME, SPONSOR_EIN, SPONSOR_ADDRESS, SPONSOR_BANK, SPONSOR_BROKERAGE, SPONSOR_CRYPTO\): donors' instructions and receipts show them\./,
    );
  });

  test('it can pay a charity: a demo PAYEE_DATA_KEY kept beside its database, sample ACH settings', () => {
    assert.match(printed, /Paying charities: a demo PAYEE_DATA_KEY \(.*demo-payee\.key\) and sample ACH_\* settings/);
    const keyFile = join(dir, 'demo-payee.key');
    assert.equal(Buffer.from(readFileSync(keyFile, 'utf8'), 'base64').length, 32);
    assert.equal(statSync(keyFile).mode & 0o777, 0o600, 'readable by its owner only');
  });

  test("an operator walks the README's payment run on the demo's database, from the CLI", async () => {
    assert.match(printed, /A charity to claim: Mercy Corps \(EIN 911148123; Ada's approved \$100 waits for a payment run\)\. Sign up as finance@mercycorps\.demo\.test/);
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const block = /### Walk the money out \(the demo\)[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const commands = block
      .split('\n')
      .filter((line) => line.startsWith('npx almoner '))
      .map((line) => (line.split('#')[0] ?? '').trim().slice('npx almoner '.length));
    assert.ok(commands.length >= 6, block);
    // A banking day from tomorrow: the README leaves the date to the reader.
    const tomorrow = new Date(Date.now() + 86_400_000);
    while (tomorrow.getUTCDay() === 0 || tomorrow.getUTCDay() === 6) tomorrow.setUTCDate(tomorrow.getUTCDate() + 1);
    const database = `sqlite:${join(dir, 'almoner.sqlite')}`;
    const outputs: string[] = [];
    for (const command of commands) {
      const args = command
        .replace('YYYY-MM-DD', tomorrow.toISOString().slice(0, 10))
        .split(/\s+/)
        .map((word) => (/\.(csv|pdf)$/.test(word) ? join(dir, word) : word));
      const res = await runCli(args, database);
      assert.equal(res.code, 0, `almoner ${args.join(' ')}: ${res.stderr}`);
      outputs.push(res.stdout);
    }
    const submitted = outputs.find((o) => /submitted/.test(o)) ?? '';
    assert.match(submitted, /sent .* Save the Children/);
    assert.match(submitted, /sent .* Mercy Corps/);
    assert.ok(statSync(join(dir, 'remittances.pdf')).size > 1000, 'the remittances were printed');
    assert.match(readFileSync(join(dir, 'checks.csv'), 'utf8'), /Mercy Corps/i);
  });

  test('the names donors try first are found', async () => {
    const base = /Almoner is running at (\S+)/.exec(printed)?.[1] ?? '';
    const key = /\(shown once\): (alm_live_\S+)/.exec(printed)?.[1] ?? '';
    for (const [query, ein] of [
      ['red cross', '530196605'],
      ['save the children', '060726487'],
      ['habitat for humanity', '363283625'],
      ['mercy corps', '911148123'],
      ['world wildlife', '521693387'],
      ['united way', '630288846'],
      ['goodwill', '930386840'],
    ]) {
      const found = (await (await fetch(`${base}/v1/non_profits?query=${encodeURIComponent(query ?? '')}`, { headers: { 'x-api-key': key } })).json()) as {
        items?: Array<{ ein: string }>;
      };
      assert.equal(found.items?.[0]?.ein, ein, query);
    }
  });
});
