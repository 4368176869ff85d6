// Login with Almoner (ADR 16): what an app may ask for and what each scope
// lets it do, the shape of client ids and secrets, and the checks on what an
// app registers. Only the SHA-256 of a client secret is kept.
import type { Ids } from '../../shared/clock.ts';

/** The scopes of the public API. OpenID's own (`openid`, `profile`, `email`) say what the id token and userinfo hold. */
export const API_SCOPES = ['read', 'donate', 'gifts', 'dafpay'] as const;
export type ApiScope = (typeof API_SCOPES)[number];
export const OIDC_SCOPES = ['openid', 'profile', 'email', 'offline_access'] as const;
export const ALL_SCOPES: readonly string[] = [...OIDC_SCOPES, ...API_SCOPES];

/** What a donor is asked to allow, in words (the consent page, connected apps). */
export const SCOPE_WORDS: Readonly<Record<string, string>> = {
  openid: 'Know who you are on this platform',
  profile: 'See your name and public profile',
  email: 'See your email address',
  offline_access: 'Stay connected when you are not using it',
  read: 'See your profile, balance, donations, gifts and contributions',
  donate: 'Make and cancel donations from your fund',
  gifts: 'Send and act on gifts from your fund',
  dafpay: "Give from your funds at a charity's checkout: see what each may grant, make grants and follow them",
};

/** The scopes that let an app's token move money out of a fund, and so come with the monthly limit. */
export const MONEY_SCOPES: readonly ApiScope[] = ['donate', 'gifts', 'dafpay'];

/** The scopes of the public API besides `dafpay` among `scopes`: what a checkout's token may not hold beside it. */
const besideDafpay = (s: string) => s !== 'dafpay' && (API_SCOPES as readonly string[]).includes(s);

/** Why an app may not ask for `scopes` together, or undefined: `dafpay` comes alone of the API's scopes (rules §24). */
export function scopeRequestProblem(scopes: readonly string[]): string | undefined {
  if (!scopes.includes('dafpay')) return undefined;
  const others = scopes.filter(besideDafpay);
  return others.length === 0 ? undefined : `a checkout's token (dafpay) grants and does nothing else: ask for dafpay without ${others.join(', ')}`;
}

/**
 * A checkout provider's token grants and does nothing else (rules §24): with `dafpay`, the other
 * scopes of the public API are not given, whatever the app asked for.
 */
export function limitedScopes(scopes: readonly string[]): string[] {
  return scopes.includes('dafpay') ? scopes.filter((s) => !besideDafpay(s)) : [...scopes];
}

const CLIENT_ID = /^app_[0-9A-Za-z]{24}$/;

export function generateClientId(ids: Ids): string {
  return `app_${ids.base62(24)}`;
}

export function generateClientSecret(ids: Ids): string {
  return `appsec_${ids.base62(43)}`;
}

export function looksLikeClientId(text: string): boolean {
  return CLIENT_ID.test(text);
}

export const APP_NAME_MAX = 100;
export const REDIRECT_URIS_MAX = 10;
export const URI_MAX = 2000;

/**
 * Why a redirect URI cannot be registered, or undefined. Exact URIs only (no wildcards, no
 * fragment); https, or http on a loopback host for development.
 */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri.length > URI_MAX) return `must be at most ${URI_MAX} characters`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'must be a full address, like https://app.example.org/callback';
  }
  if (url.hash !== '' || uri.includes('#')) return 'must not have a fragment (#...)';
  if (url.username !== '' || url.password !== '') return 'must not carry a user name or password';
  const loopback = url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && loopback) return undefined;
  return 'must start with https:// (http:// only on localhost)';
}

/**
 * Why `url` may not be where a donate link sends the donor back for an app that registered
 * `redirectUris`, or undefined: an address such as a redirect URI may be (https, or http on
 * localhost), on the origin of one of them. Anything else would be an open redirect.
 */
export function returnUrlProblem(url: string, redirectUris: readonly string[]): string | undefined {
  const problem = redirectUriProblem(url);
  if (problem !== undefined) return problem;
  const origin = new URL(url).origin;
  return redirectUris.some((u) => URL.parse(u)?.origin === origin) ? undefined : `must be on an address the app registered (${origin} is not one)`;
}

/** Why a logo address cannot be registered, or undefined. */
export function logoUriProblem(uri: string): string | undefined {
  if (uri.length > URI_MAX) return `must be at most ${URI_MAX} characters`;
  try {
    return new URL(uri).protocol === 'https:' ? undefined : 'must start with https://';
  } catch {
    return 'must be a full address, like https://app.example.org/logo.png';
  }
}

/** The calendar month (UTC) a monthly limit counts, as 'YYYY-MM'. */
export function monthOf(at: Date): string {
  return at.toISOString().slice(0, 7);
}

/** How often a connection's `last_used_at` may be written. */
export const CONNECTION_USE_WRITE_INTERVAL_MS = 60_000;
