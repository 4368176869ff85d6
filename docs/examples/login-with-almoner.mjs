// Login with Almoner: the smallest app that signs a donor in and acts for them. Plain JavaScript
// on Node 20+ with one dependency (`npm install openid-client`).
//
// 1. Register the app: in Almoner's web app, Settings -> Apps -> New app, with the redirect URI
//    http://localhost:4999/callback. Copy its client id and secret.
// 2. Run it, with ALMONER_URL the address Almoner prints (the demo's is http://127.0.0.1:3000):
//      ALMONER_URL=http://127.0.0.1:3000 CLIENT_ID=... CLIENT_SECRET=... node login-with-almoner.mjs
// 3. Open http://localhost:4999/login, sign in as a donor and allow the app.
import { createServer } from 'node:http';
import * as oidc from 'openid-client';

const almoner = new URL(process.env.ALMONER_URL ?? 'http://127.0.0.1:3000');
const port = Number(process.env.PORT ?? 4999);
const redirectUri = `http://localhost:${port}/callback`;

// openid-client speaks only HTTPS unless told otherwise: allow plain HTTP for a platform on http://
// (the demo, a laptop); a real platform is on https:// and needs nothing.
const config = await oidc.discovery(almoner, process.env.CLIENT_ID ?? '', process.env.CLIENT_SECRET, undefined, {
  execute: almoner.protocol === 'http:' ? [oidc.allowInsecureRequests] : [],
});

// state -> PKCE verifier of each sign-in under way (a real app keeps these in the visitor's session).
const pending = new Map();

async function route(url) {
  if (url.pathname === '/login') {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    pending.set(state, verifier);
    const to = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid profile read',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    return { status: 302, headers: { location: to.href } };
  }
  if (url.pathname === '/callback') {
    const state = url.searchParams.get('state') ?? '';
    const verifier = pending.get(state);
    if (verifier === undefined) return { status: 400, body: 'Unknown sign-in: start again at /login.' };
    pending.delete(state);
    const tokens = await oidc.authorizationCodeGrant(config, url, { pkceCodeVerifier: verifier, expectedState: state });
    // The access token calls the API as the donor, within the scopes they allowed.
    const response = await fetch(new URL('/v1/users/me', almoner), { headers: { authorization: `Bearer ${tokens.access_token}` } });
    const me = await response.json();
    return { status: 200, body: `Signed in with Almoner as ${me.name} (@${me.slug}).` };
  }
  return { status: 200, body: 'Login with Almoner: open /login.' };
}

createServer((request, response) => {
  route(new URL(request.url ?? '/', redirectUri)).then(
    ({ status, headers = {}, body = '' }) => response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers }).end(body),
    (error) => response.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' }).end(`Sign-in failed: ${error.message}`),
  );
}).listen(port, 'localhost', () => console.log(`listening on http://localhost:${port}: open /login`));
