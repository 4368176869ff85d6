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
