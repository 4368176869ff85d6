// The TypeScript client and `alms`, the donor's command line, against a real
// server process on both engines: every method and command, pages across
// pages, a 503 after the work was done retried into one donation, a 429's
// Retry-After honoured, typed errors for the problems the server sends, and
// bad arguments refused with exit 2 before anything is sent.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ChildProcess } from 'node:child_process';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { engines, freshDatabase, fund, makeNonProfit, makeUser, startServerProcess, testConfig, type TestUser } from './harness.ts';
import { openPlatform } from '../src/platform.ts';
import { assertReadmeOutputs, readmeExamples, readmeWorld } from './client-readme.ts';
import { AlmonerError, createClient, idempotencyKey } from '@almoner/client';

const EIN = '530196605';
const ALMS = new URL('../packages/client/bin/alms.js', import.meta.url).pathname;
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("the client's Idempotency-Keys", () => {
  test('are UUIDs of version 7: the time they were made first, so that keys sort in the order they were made', () => {
    const at = Date.UTC(2026, 11, 5, 18, 30);
    const keys = Array.from({ length: 2_000 }, (_, i) => idempotencyKey(at + Math.floor(i / 100)));
    for (const key of keys) assert.match(key, UUID_V7);
    assert.equal(new Set(keys).size, keys.length, 'unique, a hundred in one millisecond included');
    // The first 48 bits are the milliseconds since 1970.
    assert.equal(parseInt(keys[0]!.replaceAll('-', '').slice(0, 12), 16), at);
    assert.equal(parseInt(keys.at(-1)!.replaceAll('-', '').slice(0, 12), 16), at + 19);
    for (let i = 100; i < keys.length; i += 100) assert.ok(keys[i - 1]! < keys[i]!, `a later millisecond's key sorts after an earlier one's (${i})`);
    assert.ok(idempotencyKey() > keys.at(-1)!, 'now is after 2026-12-05');
    assert.match(idempotencyKey(2 ** 48 - 1), /^ffffffff-ffff-7/, 'the largest time the 48 bits hold');
  });
});

for (const { name: engine } of engines()) {
  describe(`the client and alms against a server (${engine})`, () => {
    let server: ChildProcess;
    let base: string;
    let donor: TestUser;
    let other: TestUser;
    let home: string;
    let cleanup: () => Promise<void>;

    const alms = async (args: string[], env: Record<string, string> = {}) => {
      try {
        const { stdout, stderr } = await promisify(execFile)(process.execPath, [ALMS, ...args], {
          env: { PATH: process.env.PATH ?? '', HOME: home, ALMONER_URL: base, ALMONER_API_KEY: donor.key, NO_COLOR: '1', ...env },
        });
        return { code: 0, stdout, stderr };
      } catch (error) {
        const e = error as { code: number; stdout: string; stderr: string };
        return { code: e.code, stdout: e.stdout, stderr: e.stderr };
      }
    };

    before(async () => {
      const db = await freshDatabase(engine);
      cleanup = db.cleanup;
      // The server's own database, seeded through a platform of its own before it starts.
      const platform = await openPlatform(testConfig(db.databaseUrl), { log: pino({ level: 'silent' }) });
      await makeNonProfit(platform.deps, { ein: EIN, name: 'American National Red Cross', city: 'Washington', state: 'DC' });
      donor = await makeUser(platform.deps, { name: 'Client Donor', slug: 'client-donor' });
      other = await makeUser(platform.deps, { name: 'Other Donor', slug: 'other-donor' });
      await fund(platform.deps, donor, 1_000_000);
      await platform.close();
      // Private addresses allowed: the listen test's receiver takes the platform's own deliveries too.
      ({ server, base } = await startServerProcess(db.databaseUrl, { RATE_LIMIT_PER_MINUTE: '100000', WEBHOOK_ALLOW_PRIVATE: 'true', NOTIFY_INTERVAL_MS: '100' }));
      home = mkdtempSync(join(tmpdir(), 'alms-home-'));
    });
    after(async () => {
      server?.kill('SIGTERM');
      await cleanup?.();
    });

    test('every method; lists page after page; a donation cancelled', async () => {
      const client = createClient({ baseUrl: base, apiKey: donor.key });
      assert.equal((await client.me()).slug, 'client-donor');
      assert.equal((await client.balance()).available_balance, 10_000);
      assert.equal((await client.users.get('other-donor')).name, 'Other Donor');
      assert.deepEqual(await client.users.causes('me'), []);
      assert.equal((await client.nonProfits.get(EIN)).name, 'American National Red Cross');
      const found = await client.nonProfits.search({ query: 'red cross' });
      assert.equal(found.items[0]?.ein, EIN);
      const made = [];
      for (const amount of [10, 11, 12, 13, 14]) made.push(await client.donations.create({ ein: EIN, amount }));
      const page = await client.donations.list({ page: 2, per_page: 2 });
      assert.deepEqual([page.meta.count, page.meta.last, page.items.length], [5, 3, 2]);
      const all = [];
      for await (const d of client.donations.all(2)) all.push(d.amount);
      assert.deepEqual(all.sort(), [10, 11, 12, 13, 14], 'every one, across three pages');
      assert.equal((await client.donations.get(made[0]?.id ?? 0)).amount, 10);
      await client.donations.cancel(made[0]?.id ?? 0);
      assert.equal((await client.donations.get(made[0]?.id ?? 0)).status, 'not_completed');
      const gift = await client.gifts.create({ name: 'Bo', amount: 20 });
      assert.equal((await client.gifts.get(gift.code)).name, 'Bo');
      assert.equal((await client.gifts.list()).items.length, 1);
      const recipient = createClient({ baseUrl: base, apiKey: other.key });
      await recipient.gifts.accept(gift.code);
      const second = await client.gifts.create({ name: 'Cy', amount: 30 });
      const claimed = await recipient.gifts.claim(second.code, EIN);
      assert.equal((claimed as { status?: string }).status ?? (await client.gifts.get(second.code)).status, 'claimed');
      const third = await client.gifts.create({ name: 'Di', amount: 19 });
      await recipient.gifts.deny(third.code);
      assert.equal((await client.gifts.get(third.code)).status, 'denied');
      // The funding contribution succeeded: its receipt, as JSON and as PDF bytes.
      const funded = (await client.contributions.list()).items.find((c) => c.status === 'success');
      assert.ok(funded);
      assert.match(String((await client.contributions.receipt(funded.id)).number), /^R-\d{6}$/);
      const pdf = await client.contributions.receiptPdf(funded.id);
      assert.equal(Buffer.from(pdf.slice(0, 5)).toString(), '%PDF-');
      const declared = await client.contributions.declare({ type: 'wire_payment', amount: 500 });
      assert.equal((await client.contributions.get(declared.id)).status, 'waiting_for_funds');
      await client.contributions.cancel(declared.id);
      const events = [];
      for await (const e of client.events.all(3)) events.push(e.type);
      assert.ok(events.includes('donation.created') && events.includes('gift.created'));
      assert.equal(((await client.request<{ items: unknown[] }>('GET', '/v1/api_keys')).items ?? []).length, 1);
    });

    test('a 503 after the work was done is retried with the same Idempotency-Key: one donation; a 429 waits its Retry-After', async () => {
      const before = (await createClient({ baseUrl: base, apiKey: donor.key }).donations.list()).meta.count;
      const keys: string[] = [];
      let posts = 0;
      const waits: number[] = [];
      let limited = false;
      const flaky: typeof fetch = async (input, init) => {
        const real = await fetch(input, init);
        if (init?.method === 'POST') {
          keys.push(new Headers(init.headers).get('idempotency-key') ?? '');
          if (++posts === 1) return new Response('{"code":"unavailable","status":503}', { status: 503, headers: { 'content-type': 'application/problem+json' } }); // done, but the answer was lost
        }
        if (!limited && String(input).includes('/users/me/balance')) {
          limited = true;
          return new Response('{}', { status: 429, headers: { 'retry-after': '2' } });
        }
        return real;
      };
      const client = createClient({ baseUrl: base, apiKey: donor.key, fetch: flaky, sleep: async (ms) => void waits.push(ms) });
      const made = await client.donations.create({ ein: EIN, amount: 25 });
      assert.equal(made.amount, 25);
      assert.equal(keys.length, 2);
      assert.equal(keys[0], keys[1], 'the same key on the retry');
      assert.match(keys[0] ?? '', UUID_V7, 'a time-ordered key (ADR 34)');
      assert.equal((await createClient({ baseUrl: base, apiKey: donor.key }).donations.list()).meta.count, before + 1, 'one donation, not two');
      await client.balance();
      assert.equal(waits.at(-1), 2000, 'Retry-After: 2 is two seconds');
      // Network errors are retried too, then reported.
      const down = createClient({ baseUrl: 'http://127.0.0.1:9', apiKey: donor.key, retries: 2, sleep: async () => {} });
      await assert.rejects(down.me(), (e: unknown) => e instanceof AlmonerError && e.code === 'network_error' && e.status === 0);
    });

    test('typed errors: status, code, request_id and field errors as the server sent them', async () => {
      const client = createClient({ baseUrl: base, apiKey: donor.key });
      const failing: Array<[() => Promise<unknown>, number, string]> = [
        [() => client.donations.create({ ein: '999999999', amount: 10 }), 404, 'non_profit_not_found'],
        [() => client.donations.create({ ein: EIN, amount: 0.5 } as never), 422, 'amount_below_minimum'],
        [() => client.donations.get(999_999), 404, 'donation_not_found'],
        [() => client.gifts.get('00000000-0000-4000-8000-000000000000'), 404, 'gift_not_found'],
        [() => client.gifts.get('no-such-gift'), 400, 'invalid_parameter'],
        [() => client.contributions.declare({ type: 'gold_bars', amount: 5 } as never), 422, 'validation_failed'],
        [() => createClient({ baseUrl: base, apiKey: 'alm_live_nope' }).me(), 401, 'invalid_api_key'],
        [() => client.nonProfits.get('12'), 400, 'invalid_parameter'],
      ];
      for (const [call, status, code] of failing) {
        await assert.rejects(call(), (e: unknown) => {
          assert.ok(e instanceof AlmonerError);
          assert.deepEqual([e.status, e.code], [status, code], e.message);
          assert.match(e.requestId ?? '', /^[0-9A-Z]{26}$/);
          return true;
        });
      }
      await assert.rejects(
        client.contributions.declare({ type: 'stock_payment', units: -1, symbol: 'AAPL' } as never),
        (e: unknown) => e instanceof AlmonerError && e.errors.some((f) => f.field === 'units'),
      );
    });

    test('alms: add money and its instructions, a receipt and a statement as files, recurring donations, webhooks', async () => {
      const added = await alms(['add', '--type', 'check_payment', '--amount', '1000']);
      assert.equal(added.code, 0, added.stderr);
      assert.match(added.stdout, /^Contribution \d+: \$1,000\.00 \(check_payment\), waiting_for_funds; reference ALM-[0-9A-Z]{4}-[0-9A-Z]{4}\n\nTo send it:\n {2}1\. /);
      const id = /^Contribution (\d+)/.exec(added.stdout)?.[1] ?? '';
      assert.match((await alms(['contribution', id])).stdout, new RegExp(`^Contribution ${id}: \\$1,000\\.00 \\(check_payment\\), waiting_for_funds`));
      const stock = await alms(['add', '--type', 'stock_payment', '--units', '12', '--symbol', 'aapl', '--json']);
      assert.deepEqual([JSON.parse(stock.stdout).currency, JSON.parse(stock.stdout).units], ['AAPL', 12]);
      const [first] = (await createClient({ baseUrl: base, apiKey: donor.key }).contributions.list({ per_page: 100 })).items.filter((c) => c.status === 'success');
      const receipt = await alms(['receipt', String(first?.id), '--out', join(home, 'r.pdf')]);
      assert.equal(receipt.stdout.trim(), `Saved the receipt of contribution ${first?.id} to ${join(home, 'r.pdf')}.`);
      assert.equal(readFileSync(join(home, 'r.pdf')).subarray(0, 5).toString(), '%PDF-');
      const year = new Date().getUTCFullYear();
      const statement = await alms(['statement', String(year), '--out', join(home, 's.pdf')]);
      assert.equal(statement.code, 0, statement.stderr);
      assert.equal(readFileSync(join(home, 's.pdf')).subarray(0, 5).toString(), '%PDF-');
      assert.equal((await alms(['receipt', id])).code, 1, 'a contribution still waiting has no receipt');

      const recurring = await alms(['recurring', 'create', '--ein', '53-0196605', '--amount', '15', '--frequency', 'monthly', '--yes']);
      assert.match(recurring.stdout, /^Recurring donation (\d+): \$15\.00 monthly to American National Red Cross, active; next on \d{4}-\d\d-\d\d\.$/m);
      const rid = /^Recurring donation (\d+)/.exec(recurring.stdout)?.[1] ?? '';
      assert.match((await alms(['recurring'])).stdout, new RegExp(`${rid}\\s+American National Red Cross\\s+\\$15\\.00\\s+monthly`));
      assert.equal((await alms(['recurring', 'cancel', rid])).code, 2, 'stopping one asks first; in a script it needs --yes');
      assert.match((await alms(['recurring', 'cancel', rid, '--yes'])).stdout, new RegExp(`Recurring donation ${rid} is stopped`));

      const hook = await alms(['webhooks', 'create', 'https://hooks.example.org/almoner', '--events', 'donation.created,donation.updated']);
      assert.equal(hook.code, 0, hook.stderr);
      assert.match(hook.stdout, /^Webhook endpoint (\d+): https:\/\/hooks\.example\.org\/almoner \(donation\.created, donation\.updated\)\nSigning secret: whsec_/);
      assert.match(hook.stderr, /not shown again/);
      const hid = /^Webhook endpoint (\d+)/.exec(hook.stdout)?.[1] ?? '';
      assert.match((await alms(['webhooks'])).stdout, new RegExp(`${hid}\\s+https://hooks\\.example\\.org/almoner\\s+donation\\.created,donation\\.updated\\s+on`));
      // (This server allows private addresses, for the listen test's real deliveries: a URL with a password is refused anywhere.)
      const local = await alms(['webhooks', 'create', 'https://user:pw@hooks.example.org/hook']);
      assert.equal(local.code, 1);
      assert.match(local.stderr, /\[invalid_url\]/);
      assert.equal((await alms(['webhooks', 'delete', hid])).stdout.trim(), `Webhook endpoint ${hid} is deleted.`);

      // Wrong arguments: exit 2, nothing sent.
      for (const args of [
        ['add', '--type', 'cash', '--amount', '5'],
        ['add', '--type', 'stock_payment', '--units', '0', '--symbol', 'AAPL'],
        ['statement', '26'],
        ['recurring', 'create', '--ein', '53-0196605', '--amount', '15', '--frequency', 'daily', '--yes'],
        ['webhooks', 'create', 'ftp://x'],
        ['listen', '--forward-to', 'not a url'],
        ['listen', '--forward-to', 'http://localhost:1/x', '--interval', '0'],
      ]) {
        const refused = await alms(args);
        assert.equal(refused.code, 2, args.join(' '));
        assert.match(refused.stderr, /^alms: /, args.join(' '));
      }
    });

    test('alms listen forwards what the platform delivers, byte for byte, signed as the platform signs webhooks', async () => {
      const received: Array<{ path: string; headers: Record<string, string>; body: string; ok: boolean }> = [];
      const secret = `whsec_${randomBytes(24).toString('base64')}`;
      let realSecret = '';
      let status = 500;
      const receiver = createServer((request, response) => {
        let body = '';
        request.on('data', (c: Buffer) => (body += c.toString()));
        request.on('end', () => {
          const headers = request.headers as Record<string, string>;
          const path = request.url ?? '';
          let ok = true;
          try {
            new Webhook(path === '/real' ? realSecret : secret).verify(body, headers);
          } catch {
            ok = false;
          }
          received.push({ path, headers, body, ok });
          if (path === '/real') return response.writeHead(204).end();
          response.writeHead(status).end();
          status = 204;
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      const port = (receiver.address() as { port: number }).port;
      const client = createClient({ baseUrl: base, apiKey: donor.key });
      await client.donations.create({ ein: EIN, amount: 10, note: 'before listening' });
      // The platform's own deliveries of the same events, to compare with what alms forwards.
      const endpoint = await client.webhooks.create({ url: `http://127.0.0.1:${port}/real`, event_types: ['donation.created', 'donation.updated'] });
      realSecret = (endpoint as { secret: string }).secret;
      const listener = spawn(
        process.execPath,
        [ALMS, 'listen', '--forward-to', `http://127.0.0.1:${port}/hooks`, '--secret', secret, '--events', 'donation.created,donation.updated', '--interval', '0.2'],
        {
          env: { PATH: process.env.PATH ?? '', HOME: home, ALMONER_URL: base, ALMONER_API_KEY: donor.key, NO_COLOR: '1' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      let err = '';
      listener.stdout.on('data', (c: Buffer) => (out += c.toString()));
      listener.stderr.on('data', (c: Buffer) => (err += c.toString()));
      const of = (path: string) => received.filter((r) => r.path === path);
      try {
        const until = async (what: () => boolean) => {
          for (let i = 0; i < 200 && !what(); i++) await new Promise((r) => setTimeout(r, 50));
          assert.ok(what(), `waited: ${out} ${err}`);
        };
        await until(() => out.includes('Forwarding donation.created, donation.updated'));
        const donation = await client.donations.create({ ein: EIN, amount: 11, note: 'while listening' });
        // Each event compared once both have it, before the next changes the donation they render.
        await until(() => of('/hooks').length >= 1 && of('/real').some((r) => r.headers['webhook-id'] === of('/hooks')[0]?.headers['webhook-id']));
        await client.donations.cancel(donation.id);
        await client.gifts.create({ name: 'Not forwarded', amount: 18 });
        await until(() => of('/hooks').length >= 2 && of('/real').some((r) => r.headers['webhook-id'] === of('/hooks')[1]?.headers['webhook-id']));
        await new Promise((r) => setTimeout(r, 500));
        const forwarded = of('/hooks');
        assert.equal(forwarded.length, 2, 'the donation made before listening and the gift are not forwarded');
        assert.ok(
          received.every((r) => r.ok),
          'each verifies with its secret (standardwebhooks)',
        );
        for (const f of forwarded) {
          const real = of('/real').find((r) => r.headers['webhook-id'] === f.headers['webhook-id']);
          assert.equal(f.body, real?.body, `${f.headers['webhook-id']}: the body alms forwards is the platform's delivery, byte for byte`);
          assert.deepEqual([f.headers['content-type'], f.headers['user-agent']], [real?.headers['content-type'], real?.headers['user-agent']]);
        }
        const bodies = forwarded.map((r) => JSON.parse(r.body) as { type: string; data: { id: number; status: string; amount: number; non_profit: { ein: string } } });
        assert.deepEqual(
          bodies.map((b) => [b.type, b.data.id, b.data.status, b.data.amount, b.data.non_profit.ein]),
          [
            ['donation.created', donation.id, 'scheduled', 11, EIN],
            ['donation.updated', donation.id, 'not_completed', 11, EIN],
          ],
          'the whole donation, as its owner reads it',
        );
        assert.match(forwarded[0]?.headers['webhook-id'] ?? '', /^evt_\d+$/);
        assert.match(out, /donation\.created\s+evt_\d+ -> 500\n.*donation\.updated\s+evt_\d+ -> 204/);
      } finally {
        listener.kill('SIGTERM');
        await new Promise((resolve) => listener.on('exit', resolve));
        receiver.close();
        await client.webhooks.delete(endpoint.id);
      }
      assert.match(err, /Stopped after forwarding 2 events\./);
      assert.doesNotMatch(err, /MaxListenersExceededWarning/, 'no listener piles up on the stop signal');
      assert.ok(!out.includes(secret) && !err.includes(secret), 'the secret it was given is never printed');
      assert.match(out, /signed with the secret you gave/);
    });

    test('alms: each command, --json as the API answers, login, and exit codes', async () => {
      const me = await alms(['me']);
      assert.deepEqual([me.code, me.stdout.trim()], [0, 'Client Donor (@client-donor)']);
      const balance = await alms(['balance']);
      assert.match(balance.stdout, /Available to give\s+\$\d[\d,]*\.\d\d/);
      const json = await alms(['balance', '--json']);
      assert.deepEqual(JSON.parse(json.stdout), await createClient({ baseUrl: base, apiKey: donor.key }).balance());
      assert.match((await alms(['user', 'other-donor'])).stdout, /Other Donor \(@other-donor\)/);
      assert.match((await alms(['search', 'red', 'cross'])).stdout, /530196605\s+American National Red Cross\s+Washington\s+DC/);
      assert.match((await alms(['nonprofit', EIN])).stdout, /American National Red Cross\nEIN 530196605 · Washington, DC/);
      assert.equal((await alms(['causes'])).stdout.trim(), 'No causes.');
      const donated = await alms(['donate', '--ein', '53-0196605', '--amount', '15', '--note', 'from the terminal', '--yes']);
      assert.match(donated.stdout, /^Donation (\d+): \$15\.00, scheduled\.$/m);
      const id = /Donation (\d+)/.exec(donated.stdout)?.[1] ?? '';
      assert.match((await alms(['donations'])).stdout, new RegExp(`${id}\\s+\\d{4}-\\d\\d-\\d\\d\\s+American National Red Cross\\s+\\$15\\.00\\s+scheduled`));
      assert.match((await alms(['donations', '--page', '2'])).stdout, /page 2 of/);
      assert.equal((await alms(['cancel', id, '--yes'])).code, 0);
      const gift = await alms(['gift', 'create', '--name', 'Cy', '--amount', '18', '--yes', '--json']);
      const code = (JSON.parse(gift.stdout) as { code: string }).code;
      assert.match((await alms(['gift', code])).stdout, /^Gift for Cy: \$18\.00, new/);
      assert.match((await alms(['gifts'])).stdout, new RegExp(code));
      assert.match((await alms(['contributions'])).stdout, /wire_payment/);

      // Money moves only when confirmed: a script without --yes fails clearly, exit 2.
      const unconfirmed = await alms(['donate', '--ein', EIN, '--amount', '5']);
      assert.equal(unconfirmed.code, 2);
      assert.match(unconfirmed.stderr, /moves money: run it from a terminal to confirm, or add --yes/);

      // login keeps the key for the user only; the environment wins over it.
      const login = await alms(['login', '--key', donor.key], { ALMONER_API_KEY: '' });
      assert.equal(login.code, 0, login.stderr);
      const file = join(home, '.config', 'almoner', 'credentials.json');
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.equal(JSON.parse(readFileSync(file, 'utf8')).key, donor.key);
      assert.equal((await alms(['me'], { ALMONER_API_KEY: '' })).stdout.trim(), 'Client Donor (@client-donor)', 'from the saved key');
      assert.equal((await alms(['me'], { ALMONER_API_KEY: other.key })).stdout.trim(), 'Other Donor (@other-donor)', 'the environment wins');

      const bad = await alms(['me'], { ALMONER_API_KEY: 'alm_live_not-a-real-key' });
      assert.equal(bad.code, 1);
      assert.equal(bad.stderr.trim().split('\n').length, 1, 'one line, no stack trace');
      assert.match(bad.stderr, /\[invalid_api_key\]/);
      const notFound = await alms(['nonprofit', '999999999']);
      assert.deepEqual([notFound.code, /non_profit_not_found/.test(notFound.stderr)], [1, true]);
    });

    test('wrong arguments print the usage and exit 2 without calling the server', async () => {
      const closed = { ALMONER_URL: 'http://127.0.0.1:9' }; // any request would fail with exit 1
      for (const args of [
        [],
        ['bogus'],
        ['me', 'extra'],
        ['user'],
        ['search'],
        ['nonprofit'],
        ['donate'],
        ['donate', '--ein', '12', '--amount', '5'],
        ['donate', '--ein', EIN, '--amount', 'five'],
        ['donate', '--ein', EIN, '--amount', '-5'],
        ['donate', '--ein', EIN, '--amount', '1.234'],
        ['cancel'],
        ['cancel', 'abc'],
        ['gift'],
        ['gift', 'create', '--amount', '5'],
        ['gift', 'create', '--name', 'Bo'],
        ['donations', '--page', '0'],
        ['search', 'x', '--cause', 'abc'],
        ['balance', '--unknown-flag'],
        ['login', '--key', 'not-a-key'],
      ]) {
        const result = await alms(args, closed);
        assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
        assert.match(result.stderr, /Usage: alms <command>/, args.join(' '));
      }
      assert.equal((await alms(['me'], { ...closed, ALMONER_API_KEY: '', HOME: mkdtempSync(join(tmpdir(), 'alms-empty-')) })).code, 2, 'no key at all');
    });
  });
}

describe("the client README's examples, run", () => {
  test('each `ts example` block runs against a server and prints what it says', async () => {
    const examples = readmeExamples();
    const world = await readmeWorld();
    const { server, base } = await startServerProcess(world.databaseUrl);
    // Inside the package, so that `@almoner/client` resolves as it will for its users.
    const dir = mkdtempSync(join(new URL('../packages/client/', import.meta.url).pathname, '.examples-'));
    try {
      const outputs = [];
      for (const [i, code] of examples.entries()) {
        const file = join(dir, `example-${i}.ts`);
        writeFileSync(file, code);
        const { stdout } = await promisify(execFile)(process.execPath, [file], { env: { ...process.env, ALMONER_URL: base, ALMONER_API_KEY: world.key } });
        outputs.push(stdout.trim());
      }
      assertReadmeOutputs(outputs);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      server.kill('SIGTERM');
      await world.cleanup();
    }
  });
});
