// No log line holds a credential or a bearer URL (the second security review
// found /reset/<token>, /invite/<token> and /gifts/<code> in the default
// request log). A real server process on each engine, its standard output
// read after each flow: every secret the flows used is looked for in it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { engines, freshDatabase, runCli, startServerProcess } from './harness.ts';
import { HttpBrowser } from './oidc-rp.ts';
import { openPlatform } from '../src/platform.ts';
import { loadConfig } from '../src/config.ts';
import { redactLine } from '../src/log.ts';

test('redactLine: keys, tokens, secrets, Bearer values and credential path segments, also URL-encoded', () => {
  const line = JSON.stringify({
    req: { url: '/reset/AbCdEfGhIjKlMnOpQrStUv-_0123456789abcdefghi?x=1' },
    msg: 'GET /gifts/0f8fad5b-d9cb-469f-a165-70867728950e and /signin?next=%2Foauth%2Finteraction%2FXyZ0123456789abcd',
    key: 'alm_live_ABCDEFGHIJ0123456789abcdefghij0123456789',
    admin: 'alm_admin_ABCDEFGHIJ0123456789abcdefghij0123456789',
    secret: 'appsec_0123456789abcdefghij and whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MDEyMzQ1Njc4OQ==',
    header: 'Bearer eyJhbGciOi.eyJzdWIi.c2lnbmF0dXJl',
    invite: '/invite/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    resume: '/oidc/auth/Zyx9876543210abcd',
    claim: '/charities/claims/confirm/ClaimTokenClaimTokenClaimTokenClaimToken123',
  });
  const out = redactLine(line);
  for (const secret of [
    'AbCdEfGhIjKlMnOpQrStUv',
    '0f8fad5b-d9cb',
    'XyZ0123456789abcd',
    'ABCDEFGHIJ0123456789',
    '0123456789abcdefghij',
    'c2VjcmV0',
    'eyJhbGciOi',
    'AAAAAAAAAAAA',
    'Zyx9876543210abcd',
    'ClaimToken',
  ]) {
    assert.ok(!out.includes(secret), `${secret} is redacted in ${out}`);
  }
  assert.match(out, /\/reset\/\[redacted\]\?x=1/, 'what is not secret stays readable');
  assert.match(out, /alm_live_\[redacted\]/);
  assert.equal(redactLine('{"msg":"GET /v1/donations?page=2 200"}'), '{"msg":"GET /v1/donations?page=2 200"}');
});

for (const { name: engine } of engines()) {
  describe(`a real server's log holds no credential (${engine})`, () => {
    test('after an invitation, a reset, a gift and API calls with a key, none of their secrets is in the log', async () => {
      const { databaseUrl, cleanup } = await freshDatabase(engine);
      try {
        const made = await runCli(['users', 'create', '--name', 'Logged Person', '--invite'], databaseUrl);
        assert.equal(made.code, 0, made.stderr);
        const key = /(alm_live_[A-Za-z0-9]+)/.exec(made.stdout)?.[1] ?? '';
        const invite = /\/invite\/([A-Za-z0-9_-]{43})/.exec(made.stdout)?.[1] ?? '';
        assert.ok(key !== '' && invite !== '', made.stdout);
        const { server, base, exited } = await startServerProcess(databaseUrl, { LOG_LEVEL: 'info' });
        let log = '';
        server.stdout?.on('data', (c: Buffer) => (log += c.toString()));
        try {
          const browser = new HttpBrowser(base);
          assert.equal((await browser.request('GET', `/invite/${invite}`)).status, 200);
          await browser.signUp('Reset Person', `reset-log-${engine}@example.org`);
          const visitor = new HttpBrowser(base);
          await visitor.request('GET', '/forgot');
          assert.equal((await visitor.request('POST', '/forgot', { email: `reset-log-${engine}@example.org` })).status, 200);
          const platform = await openPlatform(loadConfig({ ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' }));
          const mail = await platform.deps.db.selectFrom('mail_outbox').select('text').where('kind', '=', 'password_reset').executeTakeFirstOrThrow();
          await platform.close();
          const reset = /\/reset\/([A-Za-z0-9_-]+)/.exec(mail.text)?.[1] ?? '';
          assert.notEqual(reset, '');
          assert.equal((await visitor.request('GET', `/reset/${reset}`)).status, 200);
          const headers = { 'x-api-key': key, 'content-type': 'application/json' };
          const gift = (await (await fetch(`${base}/v1/gifts`, { method: 'POST', headers, body: JSON.stringify({ name: 'Logged', amount: 18 }) })).json()) as {
            code?: string;
            status?: number;
          };
          // No money in the fund: the gift is refused; a gift page by code is then looked up as anyone would.
          const code = gift.code ?? '0f8fad5b-d9cb-469f-a165-70867728950e';
          await fetch(`${base}/gifts/${code}`);
          await fetch(`${base}/v1/gifts/${code}`, { headers });
          await fetch(`${base}/v1/users/me`, { headers: { authorization: `Bearer ${key}` } });
          await fetch(`${base}/v1/users/me?api_key=${key}`);
          await new Promise((resolve) => setTimeout(resolve, 300)); // the log is written asynchronously
          assert.match(log, /\/invite\/\[redacted\]/, 'the flows were logged');
          assert.match(log, /\/reset\/\[redacted\]/);
          assert.match(log, /\/gifts\/\[redacted\]/);
          const secrets: Array<[string, string]> = [
            ['the API key', key],
            ['the invitation token', invite],
            ['the reset token', reset],
            ['the gift code', code],
          ];
          for (const [what, secret] of secrets) assert.ok(!log.includes(secret), `${what} is in the log`);
        } finally {
          server.kill('SIGTERM');
          await exited;
        }
      } finally {
        await cleanup();
      }
    });
  });
}
