// A relying party for tests of Login with Almoner: a real app's side of the
// flow with openid-client (discovery, PKCE, state, nonce, the code grant), and
// a small cookie-keeping browser over real HTTP that signs in, consents and
// follows redirects until the app's redirect URI.
import * as client from 'openid-client';
export { freePort } from '../bench/processes.ts';

export const REDIRECT_URI = 'http://localhost:4999/callback';

/** An app's call to the API with its `authorization` header over real HTTP: status, JSON body, headers, the challenge and the body's length. */
export async function api(base: string, method: string, path: string, authorization: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(new URL(path, base), {
    method,
    headers: { authorization, ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: (text === '' ? undefined : JSON.parse(text)) as Record<string, unknown>,
    headers: response.headers,
    challenge: response.headers.get('www-authenticate'),
    length: text.length,
  };
}

export interface Hop {
  status: number;
  url: string;
  location: string | undefined;
  body: string;
  headers: Headers;
}

export class HttpBrowser {
  readonly cookies = new Map<string, { value: string; path: string }>();
  csrf: string | undefined;
  readonly base: string;

  constructor(base: string) {
    this.base = base;
  }

  #cookieFor(url: URL): string {
    return [...this.cookies]
      .filter(([, c]) => url.pathname.startsWith(c.path))
      .sort((a, b) => b[1].path.length - a[1].path.length)
      .map(([name, c]) => `${name}=${c.value}`)
      .join('; ');
  }

  async request(method: 'GET' | 'POST', target: string, body?: Record<string, string>): Promise<Hop> {
    const url = new URL(target, this.base);
    const form = body === undefined ? undefined : new URLSearchParams({ ...(this.csrf === undefined ? {} : { _csrf: this.csrf }), ...body });
    const response = await fetch(url, {
      method,
      redirect: 'manual',
      headers: { cookie: this.#cookieFor(url), ...(form === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded', origin: this.base }) },
      ...(form === undefined ? {} : { body: form.toString() }),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';').map((p) => p.trim());
      const eq = (pair ?? '').indexOf('=');
      const name = (pair ?? '').slice(0, eq);
      const path = attributes.find((a) => /^path=/i.test(a))?.slice(5) ?? '/';
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, { value: (pair ?? '').slice(eq + 1), path });
    }
    const text = await response.text();
    const token = /name="_csrf" value="([^"]*)"/.exec(text)?.[1];
    if (token !== undefined) this.csrf = token;
    const location = response.headers.get('location') ?? undefined;
    return { status: response.status, url: url.href, location: location === undefined ? undefined : new URL(location, url).href, body: text, headers: response.headers };
  }

  async signUp(name: string, email: string): Promise<Hop> {
    await this.request('GET', '/signup');
    return this.request('POST', '/signup', { name, email, password: 'correct horse battery' });
  }

  /**
   * Follows an authorization URL as a browser would (redirects, the sign-in continuation's Refresh
   * header) and answers the consent page with `consent`, until a redirect leaves for `redirectUri`:
   * returns that URL, or the page where it stopped.
   */
  async authorize(url: string, consent: Record<string, string> | undefined, redirectUri = REDIRECT_URI): Promise<{ callback?: string; stopped?: Hop }> {
    let hop = await this.request('GET', url);
    for (let i = 0; i < 12; i++) {
      const next = hop.location ?? /^0; url=(.*)$/.exec(hop.headers.get('refresh') ?? '')?.[1];
      if (next !== undefined && next.startsWith(redirectUri)) return { callback: next };
      if (next !== undefined) {
        hop = await this.request('GET', next);
        continue;
      }
      if (hop.status === 200 && consent !== undefined && hop.body.includes('name="decision"')) {
        const action = /<form method="post" action="(\/oauth\/interaction\/[^"]+)"/.exec(hop.body)?.[1];
        if (action === undefined) return { stopped: hop };
        hop = await this.request('POST', action, consent);
        continue;
      }
      return { stopped: hop };
    }
    return { stopped: hop };
  }
}

export interface Authorization {
  url: string;
  verifier: string;
  state: string;
  nonce: string;
}

/** The app's side: discovery with its client id and secret (http allowed: a test on localhost). */
export async function relyingParty(issuer: string, clientId: string, secret: string): Promise<client.Configuration> {
  return client.discovery(new URL(issuer), clientId, { redirect_uris: [REDIRECT_URI], response_types: ['code'] }, client.ClientSecretBasic(secret), {
    execute: [client.allowInsecureRequests],
  });
}

export async function authorizationUrl(config: client.Configuration, scope: string, extra: Record<string, string> = {}): Promise<Authorization> {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...extra,
  });
  return { url: url.href, verifier, state, nonce };
}

export async function exchange(config: client.Configuration, callback: string, a: Authorization) {
  return client.authorizationCodeGrant(config, new URL(callback), { pkceCodeVerifier: a.verifier, expectedState: a.state, expectedNonce: a.nonce });
}

export { client };
