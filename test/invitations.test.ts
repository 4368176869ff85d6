// Sign-in invitations on both engines: an operator makes a user with --invite;
// the link lets the person choose their email and password once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engines, fingerprint, freshDatabase, makeUser, openEnv, runCli, startServerProcess } from './harness.ts';
import { WebClient } from './web-client.ts';
import { inviteUser } from '../src/modules/accounts/index.ts';
import { setUserStatus } from '../src/modules/users/index.ts';

for (const { name: engine } of engines()) {
  test(`an invitation link makes the invited person's sign-in, once (${engine})`, async () => {
    const env = await openEnv(engine);
    try {
      const url = env.platform.deps.config.databaseUrl;
      const made = await runCli(['users', 'create', '--name', 'Invited Person', '--invite'], url);
      assert.equal(made.code, 0, made.stderr);
      const link = /Sign-in invitation .*: (http\S+)/.exec(made.stdout)?.[1] ?? '';
      const path = new URL(link).pathname;
      assert.match(path, /^\/invite\/[A-Za-z0-9_-]{43}$/);

      const browser = new WebClient(env.app);
      const page = await browser.get(path);
      assert.equal(page.status, 200);
      assert.match(page.body, /Choose how you sign in/);
      // A bad form changes nothing and keeps the link working.
      const before = await fingerprint(env.deps);
      assert.equal((await browser.post(path, { email: 'not an email', password: 'a long enough password' })).status, 422);
      assert.deepEqual(await fingerprint(env.deps), before);
      const accepted = await browser.post(path, { email: 'invited@example.org', password: 'a long enough password' });
      assert.equal(accepted.status, 303);
      assert.equal(accepted.location, '/dashboard?done=welcome');
      assert.equal((await browser.get('/dashboard')).status, 200, 'signed in');
      // Used up: the link answers 404, and a second use changes nothing.
      const again = new WebClient(env.app);
      assert.equal((await again.get(path)).status, 404);
      await again.get('/signup'); // a page with a form: its CSRF token
      const second = await again.post(path, { email: 'someone@example.org', password: 'another long password' });
      assert.equal(second.status, 404);
      // The person signs in with what they chose.
      const later = new WebClient(env.app);
      assert.equal((await later.signIn('invited@example.org', 'a long enough password')).status, 303);
      // An unknown or malformed token is 404; a user who signs in already cannot be invited.
      assert.equal((await new WebClient(env.app).get('/invite/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).status, 404);
      const userId = /Created user (\d+)/.exec(made.stdout)?.[1] ?? '';
      const refused = await runCli(['users', 'invite', userId], url);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /account_exists/);
    } finally {
      await env.close();
    }
  });
}

for (const { name: engine } of engines()) {
  test(`an invitation for a user suspended since it was made is refused, and changes nothing (${engine})`, async () => {
    const env = await openEnv(engine);
    try {
      const user = await makeUser(env.deps);
      const { url } = await inviteUser(env.deps, user.user_id);
      const path = new URL(url).pathname;
      await setUserStatus(env.deps, user.user_id, 'suspended', 'test');
      const browser = new WebClient(env.app);
      assert.equal((await browser.get(path)).status, 404);
      await browser.get('/signup'); // a page with a form: its CSRF token
      const before = await fingerprint(env.deps);
      const taken = await browser.post(path, { email: 'suspended-invite@example.org', password: 'a long enough password' });
      assert.equal(taken.status, 404);
      assert.deepEqual(await fingerprint(env.deps), before, 'no account, no session');
    } finally {
      await env.close();
    }
  });
}

for (const { name: engine } of engines()) {
  test(`mail a CLI command sends links to the address its server recorded, not a default port (${engine})`, async () => {
    const db = await freshDatabase(engine);
    const { server, base, exited } = await startServerProcess(db.databaseUrl);
    try {
      const made = await runCli(['users', 'create', '--name', 'Linked Person', '--invite'], db.databaseUrl);
      assert.equal(made.code, 0, made.stderr);
      const link = /Sign-in invitation .*: (http\S+)/.exec(made.stdout)?.[1] ?? '';
      assert.ok(link.startsWith(`${base}/invite/`), `${link} is on the server's own address ${base}`);
      assert.equal((await fetch(link)).status, 200, 'and it opens there');
      // PUBLIC_URL, when the command is given one, wins.
      const named = await runCli(['users', 'create', '--name', 'Named Person', '--invite'], db.databaseUrl, { PUBLIC_URL: 'https://give.example.org' });
      assert.match(named.stdout, /Sign-in invitation .*: https:\/\/give\.example\.org\/invite\//);
    } finally {
      server.kill('SIGTERM');
      await exited;
      await db.cleanup();
    }
  });
}
