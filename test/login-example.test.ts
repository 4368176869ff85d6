// The Login with Almoner example in docs/examples, run as written against a server started
// without PUBLIC_URL (one address: the one it prints): a developer registers the app in the web
// app, the example runs on its own with that client id and secret, and a donor who is not signed
// in goes through it: the sign-in page names the app, they sign in, allow it, and the example
// greets them by the name the API gave it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { freshDatabase, startServerProcess } from './harness.ts';
import { freePort, HttpBrowser } from './oidc-rp.ts';

const EXAMPLE = new URL('../docs/examples/login-with-almoner.mjs', import.meta.url).pathname;

describe('docs/examples/login-with-almoner.mjs against a server', () => {
  let server: ChildProcess;
  let example: ChildProcess;
  let base: string;
  let cleanup: () => Promise<void>;

  before(async () => {
    const db = await freshDatabase('sqlite');
    cleanup = db.cleanup;
    const port = await freePort();
    ({ server, base } = await startServerProcess(db.databaseUrl, { PORT: String(port), PUBLIC_URL: '' }));
    assert.equal(base, `http://127.0.0.1:${port}`);
  });

  after(async () => {
    example?.kill('SIGTERM');
    server?.kill('SIGTERM');
    await cleanup?.();
  });

  test('a donor signs in through the example app, which names itself and greets them', async () => {
    const discovery = (await (await fetch(`${base}/.well-known/openid-configuration`)).json()) as { issuer: string };
    assert.equal(discovery.issuer, base, 'the issuer is the address the server is reached at');

    const examplePort = await freePort();
    const callback = `http://localhost:${examplePort}/callback`;
    const developer = new HttpBrowser(base);
    await developer.signUp('Dev Eloper', 'dev@example.org');
    await developer.request('GET', '/settings/apps');
    assert.equal((await developer.request('POST', '/settings/apps', { name: 'Gift Matcher', redirect_uris: callback, logo_uri: '' })).status, 303);
    const page = (await developer.request('GET', '/settings/apps')).body;
    const clientId = /<code>(app_[0-9A-Za-z]{24})<\/code>/.exec(page)?.[1] ?? '';
    const secret = /id="new-secret" class="key" readonly value="(appsec_[0-9A-Za-z]+)"/.exec(page)?.[1] ?? '';
    assert.ok(clientId !== '' && secret !== '');

    example = spawn(process.execPath, [EXAMPLE], {
      env: { ...process.env, ALMONER_URL: base, CLIENT_ID: clientId, CLIENT_SECRET: secret, PORT: String(examplePort) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let said = '';
    await new Promise<void>((resolve, reject) => {
      example.stdout?.on('data', (chunk: Buffer) => {
        said += chunk.toString();
        if (said.includes('listening on')) resolve();
      });
      example.stderr?.on('data', (chunk: Buffer) => (said += chunk.toString()));
      example.on('exit', (code) => reject(new Error(`the example exited (${code}): ${said}`)));
    });

    await new HttpBrowser(base).signUp('Dana Donor', 'dana@example.org');
    const donor = new HttpBrowser(base); // another browser: not signed in
    const first = await donor.authorize(`http://localhost:${examplePort}/login`, { decision: 'allow' }, callback);
    const signIn = first.stopped;
    assert.ok(
      signIn !== undefined && new URL(signIn.url).pathname === '/signin',
      `a donor who is not signed in is asked to (${signIn?.url} ${signIn?.status} ${signIn?.body.slice(0, 300)})`,
    );
    assert.match(signIn.body, /<p class="notice" id="for-app"><strong>Gift Matcher<\/strong> asks you to sign in/);
    const next = /name="next" value="([^"]+)"/.exec(signIn.body)?.[1] ?? '';
    assert.match(next, /^\/oauth\/interaction\//);
    const signedIn = await donor.request('POST', '/signin', { email: 'dana@example.org', password: 'correct horse battery', next });
    assert.equal(signedIn.status, 303);
    const second = await donor.authorize(signedIn.location ?? '', { decision: 'allow' }, callback);
    assert.ok(second.callback !== undefined, `the donor comes back to the app (stopped at ${second.stopped?.url})`);
    const greeting = await fetch(second.callback);
    assert.equal(await greeting.text(), 'Signed in with Almoner as Dana Donor (@dana-donor).');
    assert.equal(greeting.status, 200);
  });
});
