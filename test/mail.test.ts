// E-mail (rules §15) on both engines, against a real SMTP server started
// here (smtp-server), every message parsed with mailparser: recipients,
// subjects, escaped content, links that work; password resets end to end
// over HTTP; mail retried after the SMTP server comes back, never twice; and
// the .eml files (and `almoner mail list`) without SMTP_URL.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { linkSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import { accountOf, call, engines, fund, makeNonProfit, openEnv, runCli, TestClock, type TestEnv } from './harness.ts';
import { WebClient, textOf } from './web-client.ts';
import { createAdminToken } from '../src/modules/admin/index.ts';
import { runNotify } from '../src/modules/notify/index.ts';
import { removeMailFiles } from '../src/modules/mail/index.ts';
import { RESET_ANSWER_MS } from '../src/modules/accounts/index.ts';

const EIN = '261544963';

class Smtp {
  readonly mail: ParsedMail[] = [];
  #server: SMTPServer | undefined;
  port = 0;

  async start(port = 0): Promise<void> {
    this.#server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData: (stream, _session, callback) => {
        simpleParser(stream)
          .then((parsed) => {
            this.mail.push(parsed);
            callback();
          })
          .catch(callback);
      },
    });
    await new Promise<void>((resolve) => this.#server?.listen(port, '127.0.0.1', resolve));
    this.port = (this.#server.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()));
  }

  to(address: string): ParsedMail[] {
    return this.mail.filter((m) => (Array.isArray(m.to) ? m.to : [m.to]).some((t) => t?.value.some((v) => v.address === address)));
  }
}

for (const { name: engine } of engines()) {
  describe(`e-mail through SMTP on ${engine}`, () => {
    let env: TestEnv;
    let operator: string;
    const smtp = new Smtp();
    /** What reached an address but the address confirmation every sign-up sends (rules §15). */
    const received = (address: string) => smtp.to(address).filter((m) => m.subject !== 'Confirm your Almoner address');
    const clock = new TestClock('2026-11-23T12:00:00.000Z');
    const admin = (method: string, url: string, body?: unknown) =>
      call(env.app, method, `/admin/v1${url}`, { headers: { authorization: `Bearer ${operator}` }, ...(body === undefined ? {} : { body }) });

    before(async () => {
      await smtp.start();
      env = await openEnv(engine, { smtpUrl: `smtp://127.0.0.1:${smtp.port}`, mailFrom: 'Almoner <giving@almoner.test>' }, { clock });
      await makeNonProfit(env.deps, { ein: EIN, name: 'Vermont Foodbank' });
      operator = (await createAdminToken(env.deps, 'mail', 'test')).token;
    });
    after(async () => {
      await env.close();
      await smtp.stop();
    });

    test('a gift to its recipient (escaped, its link works), its outcome to the giver, a paid donation and a receipt to the donor; once each', async () => {
      const giver = new WebClient(env.app);
      await giver.signUp('Grace <i>Giver</i>', 'grace@example.org');
      const account = await accountOf(env.deps, 'grace@example.org');
      await fund(env.deps, account, 100_000);
      await giver.get('/dashboard');
      assert.equal(
        (await giver.post('/dashboard/gifts', { name: '<b>Bo</b>', amount: '50', message: 'Happy <script>alert(1)</script> day', email: 'bo@example.org' })).status,
        303,
      );
      assert.equal((await giver.post('/dashboard/donations', { ein: EIN, amount: '30', visibility: 'public' })).status, 303);
      await runNotify(env.deps);
      await runNotify(env.deps);

      const [gift] = smtp.to('bo@example.org');
      assert.ok(gift, 'the recipient got the gift');
      assert.equal(smtp.to('bo@example.org').length, 1, 'once');
      assert.equal(gift.subject, 'Grace <i>Giver</i> sent you a gift of $50.00');
      assert.equal(gift.from?.value[0]?.address, 'giving@almoner.test');
      assert.ok(
        typeof gift.html === 'string' && gift.html.includes('&lt;script&gt;alert(1)&lt;/script&gt;') && !gift.html.includes('<script>'),
        'the message is escaped in the HTML',
      );
      assert.ok(gift.html.includes('Hello &lt;b&gt;Bo&lt;/b&gt;'));
      const link = /https:\/\/almoner\.test(\/gifts\/[0-9a-f-]{36})/.exec(gift.text ?? '')?.[1];
      assert.ok(link, gift.text);
      const page = await new WebClient(env.app).get(link);
      assert.equal(page.status, 200);
      assert.match(textOf(page.body), /sent Bo|sent <b>Bo<\/b>|gift of \$50\.00/);

      // The recipient declines: the giver hears of it.
      const code = link.split('/').pop() ?? '';
      const bo = new WebClient(env.app);
      await bo.signUp('Bo', 'bo-account@example.org');
      await bo.get(link);
      assert.equal((await bo.post(`/gifts/${code}/deny`, {})).status, 303);
      await runNotify(env.deps);
      const outcome = smtp.to('grace@example.org').find((m) => /declined/.test(m.subject ?? ''));
      assert.equal(outcome?.subject, 'Your gift to <b>Bo</b> was declined');

      // The donation is paid: its donor hears of it.
      const donation = (await env.deps.db.selectFrom('donations').select('id').where('user_id', '=', account.user_id).executeTakeFirstOrThrow()).id;
      assert.equal((await admin('POST', `/donations/${donation}/approve`)).status, 200);
      assert.equal((await admin('POST', `/donations/${donation}/pay`)).status, 200);
      await giver.get('/money');
      const declared = await giver.post('/money', { type: 'check_payment', amount: '75' });
      const contribution = Number(/\/money\/(\d+)/.exec(declared.location ?? '')?.[1]);
      assert.equal((await admin('POST', `/contributions/${contribution}/receive`, { units: '75', valuation: '1' })).status, 200);
      assert.equal((await admin('POST', `/contributions/${contribution}/advance`, { status: 'success' })).status, 200);
      await runNotify(env.deps);
      await runNotify(env.deps);
      const toGrace = received('grace@example.org').map((m) => m.subject);
      assert.equal(smtp.to('grace@example.org').length - toGrace.length, 1, 'and the address confirmation at sign-up, once');
      assert.ok(toGrace.includes('Your donation of $30.00 to Vermont Foodbank was paid'), toGrace.join(' | '));
      // Two receipts: the funding an operator recorded as success at once, and the declared check once it cleared.
      const receipts = smtp.to('grace@example.org').filter((m) => /^Receipt R-\d{6}/.test(m.subject ?? ''));
      assert.equal(receipts.length, 2);
      assert.ok(
        receipts.some((m) => m.text?.includes(`https://almoner.test/money/${contribution}`)),
        receipts.map((m) => m.text).join('\n'),
      );
      assert.equal(toGrace.length, 4, 'each once');
    });

    test('forgot password: the same answer with or without an account; the link works once, for an hour, and ends every other session', async () => {
      const donor = new WebClient(env.app);
      await donor.signUp('Reset Donor', 'reset@example.org', 'the old pass phrase');
      const elsewhere = new WebClient(env.app);
      await elsewhere.signIn('reset@example.org', 'the old pass phrase');
      assert.equal((await elsewhere.get('/dashboard')).status, 200);
      const visitor = new WebClient(env.app);
      await visitor.get('/forgot');
      const known = await visitor.post('/forgot', { email: 'Reset@Example.org' });
      await visitor.get('/forgot');
      const unknown = await visitor.post('/forgot', { email: 'nobody@example.org' });
      assert.equal(known.status, 200);
      assert.equal(textOf(known.body).replace(/\s+/g, ' '), textOf(unknown.body).replace(/\s+/g, ' '), 'no difference tells whether the address has an account');
      await visitor.get('/forgot');
      assert.equal((await visitor.post('/forgot', { email: 'not an email' })).status, 422);
      await runNotify(env.deps);
      assert.equal(smtp.to('nobody@example.org').length, 0);
      const [mail] = received('reset@example.org');
      assert.equal(mail?.subject, 'Choose a new Almoner password');
      const path = /https:\/\/almoner\.test(\/reset\/[A-Za-z0-9_-]+)/.exec(mail?.text ?? '')?.[1] ?? '';
      assert.notEqual(path, '');
      await visitor.get(path);
      assert.equal((await visitor.post(path, { password: 'short' })).status, 422);
      const set = await visitor.post(path, { password: 'a brand new pass phrase' });
      assert.deepEqual([set.status, set.location], [303, '/signin?done=password_reset']);
      assert.equal((await elsewhere.get('/dashboard')).status, 303, 'the other session is over');
      assert.equal((await donor.get('/dashboard')).status, 303);
      assert.equal((await visitor.get(path)).status, 404, 'used once');
      assert.equal((await new WebClient(env.app).signIn('reset@example.org', 'the old pass phrase')).status, 401);
      assert.equal((await new WebClient(env.app).signIn('reset@example.org', 'a brand new pass phrase')).status, 303);
      // An hour later, an unused link is dead.
      await visitor.get('/forgot');
      await visitor.post('/forgot', { email: 'reset@example.org' });
      await runNotify(env.deps);
      const late = /https:\/\/almoner\.test(\/reset\/[A-Za-z0-9_-]+)/.exec(received('reset@example.org')[1]?.text ?? '')?.[1] ?? '';
      clock.advance(3_600_001);
      assert.equal((await visitor.get(late)).status, 404);
      clock.set('2026-11-23T12:00:00.000Z');
    });

    test('only the newest reset link works: asking again ends the one before, using one ends every other', async () => {
      const donor = new WebClient(env.app);
      await donor.signUp('Newest Link', 'newest@example.org', 'the old pass phrase');
      const links: string[] = [];
      for (let i = 0; i < 3; i++) {
        const visitor = new WebClient(env.app);
        await visitor.get('/forgot');
        assert.equal((await visitor.post('/forgot', { email: 'newest@example.org' })).status, 200);
        await runNotify(env.deps);
        links.push(/https:\/\/almoner\.test(\/reset\/[A-Za-z0-9_-]+)/.exec(received('newest@example.org')[i]?.text ?? '')?.[1] ?? '');
      }
      const [first, second, third] = links as [string, string, string];
      const visitor = new WebClient(env.app);
      assert.equal((await visitor.get(first)).status, 404, 'asking again ended the first link');
      assert.equal((await visitor.get(second)).status, 404, 'and the second');
      assert.equal((await visitor.get(third)).status, 200);
      assert.equal((await visitor.post(third, { password: 'a brand new pass phrase' })).status, 303);
      // A link asked for and mailed, then another used: the first ends with it.
      const asker = new WebClient(env.app);
      await asker.get('/forgot');
      await asker.post('/forgot', { email: 'newest@example.org' });
      await runNotify(env.deps);
      const fourth = /https:\/\/almoner\.test(\/reset\/[A-Za-z0-9_-]+)/.exec(received('newest@example.org')[3]?.text ?? '')?.[1] ?? '';
      // A second open link of the same account, as an older release (or a race) could leave.
      const { user_id } = await accountOf(env.deps, 'newest@example.org');
      await env.deps.db
        .insertInto('password_resets')
        .values({ token_hash: 'x'.repeat(64), user_id, created_at: clock.now().toISOString(), expires_at: new Date(clock.now().getTime() + 60_000).toISOString() })
        .execute();
      assert.equal((await visitor.get(fourth)).status, 200);
      await visitor.get(fourth);
      assert.equal((await visitor.post(fourth, { password: 'yet another pass phrase' })).status, 303);
      const open = await env.deps.db.selectFrom('password_resets').select('token_hash').where('used_at', 'is', null).where('token_hash', '=', 'x'.repeat(64)).execute();
      assert.deepEqual(open, [], 'using a link ended every other one of the account');
    });

    test('asking for a reset takes as long with an account as without (no timing tells which addresses have one)', async () => {
      const donor = new WebClient(env.app);
      await donor.signUp('Timed Donor', 'timed@example.org', 'the old pass phrase');
      const timed = async (email: string) => {
        const visitor = new WebClient(env.app);
        await visitor.get('/forgot');
        const started = performance.now();
        assert.equal((await visitor.post('/forgot', { email })).status, 200);
        return performance.now() - started;
      };
      // Both wait for one floor, longer than the mail's writes take: a lower bound, not a race with the machine.
      for (const email of ['timed@example.org', 'nobody-timed@example.org', 'timed@example.org', 'nobody-timed@example.org']) {
        assert.ok((await timed(email)) >= RESET_ANSWER_MS - 1, email);
      }
    });

    test('while the SMTP server is down, mail waits and is retried; it goes out once when it is back', async () => {
      const port = smtp.port;
      await smtp.stop();
      const visitor = new WebClient(env.app);
      await visitor.signUp('Down Donor', 'down@example.org');
      await visitor.get('/forgot');
      assert.equal((await visitor.post('/forgot', { email: 'down@example.org' })).status, 200, 'the request is not held by the mail');
      await runNotify(env.deps);
      const waiting = await env.deps.db
        .selectFrom('mail_outbox')
        .select(['status', 'attempts', 'last_error'])
        .where('recipient', '=', 'down@example.org')
        .executeTakeFirstOrThrow();
      assert.equal(waiting.status, 'pending');
      assert.equal(waiting.attempts, 1);
      assert.match(waiting.last_error ?? '', /ECONNREFUSED|connect/);
      await smtp.start(port);
      await runNotify(env.deps);
      assert.equal(received('down@example.org').length, 0, 'not before its retry is due');
      clock.advance(31_000);
      await runNotify(env.deps);
      clock.advance(600_000);
      await runNotify(env.deps);
      assert.equal(received('down@example.org').length, 1, 'once it is back, once');
      clock.set('2026-11-23T12:00:00.000Z');
    });
  });
}

describe('e-mail without SMTP_URL: .eml files, and almoner mail list', () => {
  test('each message is written once as an .eml file named by its outbox id', async () => {
    const mailDir = mkdtempSync(join(tmpdir(), 'almoner-eml-'));
    const env = await openEnv('sqlite', { mailDir });
    try {
      const visitor = new WebClient(env.app);
      await visitor.signUp('Eml Donor', 'eml@example.org');
      await visitor.get('/forgot');
      await visitor.post('/forgot', { email: 'eml@example.org' });
      await runNotify(env.deps);
      await runNotify(env.deps);
      // The sign-up's address confirmation and the reset, each once.
      const all = readdirSync(mailDir).sort();
      assert.deepEqual(
        all.map((f) => f.replace(/^\d{8}-/, '')),
        ['address_confirmation.eml', 'password_reset.eml'],
      );
      const files = all.filter((f) => f.endsWith('-password_reset.eml'));
      const parsed = await simpleParser(readFileSync(join(mailDir, files[0] ?? '')));
      assert.equal(parsed.subject, 'Choose a new Almoner password');
      const listed = await runCli(['mail', 'list'], env.deps.config.databaseUrl, { MAIL_DIR: mailDir });
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, /sent\s+\S+\s+password_reset\s+eml@example\.org\s+"Choose a new Almoner password"/);
      assert.ok(listed.stdout.includes(files[0] ?? 'x'));
      // Each message's links, whole, under it: the reset link is there to follow.
      const reset = /^\s+(http\S+\/reset\S*)$/m.exec(listed.stdout)?.[1];
      assert.ok(reset !== undefined && parsed.text?.includes(reset), `the reset link, whole: ${listed.stdout}`);
      const status = await runCli(['webhooks', 'status'], env.deps.config.databaseUrl);
      assert.match(status.stdout, /Mail: 0 pending \(0 due now\), 2 sent, 0 failed for good/);
    } finally {
      await env.close();
    }
  });

  test('a message is sent again by replacing its file whole, never by rewriting it in place; one left half written goes with it', async () => {
    const mailDir = mkdtempSync(join(tmpdir(), 'almoner-eml-'));
    const env = await openEnv('sqlite', { mailDir });
    try {
      const visitor = new WebClient(env.app);
      await visitor.signUp('Whole Donor', 'whole@example.org');
      await runNotify(env.deps);
      const name = readdirSync(mailDir)[0] ?? '';
      assert.ok(name.endsWith('-address_confirmation.eml'), name);
      // A reader holding the file as it was (a hard link: the same file, not a copy).
      const held = join(mailDir, '..', `${name}.held-${process.pid}`);
      linkSync(join(mailDir, name), held);
      const first = readFileSync(held);
      // Sent again (as after a lost acknowledgement): due once more.
      await env.deps.db.updateTable('mail_outbox').set({ status: 'pending', next_at: '2000-01-01T00:00:00.000Z', claimed_until: null }).execute();
      await runNotify(env.deps);
      assert.notEqual(statSync(join(mailDir, name)).ino, statSync(held).ino, 'a new file took its place');
      assert.deepEqual(readFileSync(held), first, "the reader's file was left whole");
      assert.deepEqual(readdirSync(mailDir), [name], 'nothing half written is left beside it');
      rmSync(held);
      // A process stopped between writing and renaming leaves its hidden file; forgetting the
      // message's person removes it with the message's own.
      const id = Number(name.slice(0, 8));
      writeFileSync(join(mailDir, `.${name}.4242.partial`), first);
      writeFileSync(join(mailDir, `.${String(id + 1).padStart(8, '0')}-address_confirmation.eml.4242.partial`), first);
      removeMailFiles(env.deps, [id]);
      assert.deepEqual(readdirSync(mailDir), [`.${String(id + 1).padStart(8, '0')}-address_confirmation.eml.4242.partial`], "only that message's files");
    } finally {
      await env.close();
    }
  });
});
