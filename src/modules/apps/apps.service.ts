// Use cases of Login with Almoner (ADR 16): registering apps, operators
// disabling them, a donor's consent (a connection), connected apps and
// disconnecting one, which ends its tokens at once.
import { hashSecret } from '../../shared/secrets.ts';
import type { Deps } from '../../deps.ts';
import { AppError, fieldErrors, notFound, type FieldError } from '../../shared/errors.ts';
import { assertSafeInteger } from '../../shared/assert.ts';
import type { Book } from '../../shared/book.ts';
import type { Caller } from '../../shared/caller.ts';
import { usdText } from '../../shared/money.ts';
import { recordAudit } from '../audit/index.ts';
import { sandboxUserFor } from '../users/index.ts';
import {
  API_SCOPES,
  APP_NAME_MAX,
  generateClientId,
  generateClientSecret,
  logoUriProblem,
  monthOf,
  redirectUriProblem,
  REDIRECT_URIS_MAX,
  returnUrlProblem,
  SCOPE_WORDS,
} from './apps.ts';
import * as store from './apps.store.ts';
import { newSigningKey, TTL_SECONDS } from './oidc.ts';

export interface NewApp {
  name: string;
  redirect_uris: readonly string[];
  logo_uri?: string;
  sandbox?: boolean;
}

export interface AppView {
  client_id: string;
  name: string;
  redirect_uris: string[];
  logo_uri: string | null;
  book: Book;
  created_at: string;
  disabled_at: string | null;
  disabled_reason: string | null;
  deleted_at: string | null;
}

function viewOf(app: store.AppRow): AppView {
  return {
    client_id: app.client_id,
    name: app.name,
    redirect_uris: JSON.parse(app.redirect_uris) as string[],
    logo_uri: app.logo_uri,
    book: app.book,
    created_at: app.created_at,
    disabled_at: app.disabled_at,
    disabled_reason: app.disabled_reason,
    deleted_at: app.deleted_at,
  };
}

/**
 * Registers an app for the live user `ownerId`; the client secret is in the result and nowhere
 * else, ever. Throws unprocessable (validation_failed, sandbox_disabled).
 */
export async function registerApp(deps: Deps, ownerId: number, input: NewApp): Promise<{ app: AppView; client_secret: string }> {
  const problems: FieldError[] = [];
  const name = input.name.trim();
  if (name === '' || [...name].length > APP_NAME_MAX) problems.push({ field: 'name', code: 'validation_failed', message: `is required, at most ${APP_NAME_MAX} characters` });
  const uris = [...new Set(input.redirect_uris.map((u) => u.trim()).filter((u) => u !== ''))];
  if (uris.length === 0) problems.push({ field: 'redirect_uris', code: 'validation_failed', message: 'needs at least one address to send donors back to' });
  if (uris.length > REDIRECT_URIS_MAX) problems.push({ field: 'redirect_uris', code: 'validation_failed', message: `may list at most ${REDIRECT_URIS_MAX} addresses` });
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem !== undefined) problems.push({ field: 'redirect_uris', code: 'validation_failed', message: `${uri}: ${problem}` });
  }
  const logo = input.logo_uri?.trim() ?? '';
  const logoProblem = logo === '' ? undefined : logoUriProblem(logo);
  if (logoProblem !== undefined) problems.push({ field: 'logo_uri', code: 'validation_failed', message: logoProblem });
  if (problems.length > 0) throw fieldErrors(problems);
  if (input.sandbox === true && !deps.config.sandbox) throw new AppError('unprocessable', 'sandbox_disabled', 'this platform has no sandbox: only live apps can be registered');
  const secret = generateClientSecret(deps.ids);
  const app = await store.insertApp(deps.db, {
    client_id: generateClientId(deps.ids),
    owner_id: ownerId,
    book: input.sandbox === true ? 'test' : 'live',
    name,
    redirect_uris: JSON.stringify(uris),
    logo_uri: logo === '' ? null : logo,
    secret_hash: hashSecret(secret),
    created_at: deps.clock.now().toISOString(),
  });
  return { app: viewOf(app), client_secret: secret };
}

export async function appsOf(deps: Deps, ownerId: number): Promise<AppView[]> {
  return (await store.appsOfOwner(deps.db, ownerId)).map(viewOf);
}

/**
 * A new client secret for an app of `ownerId`, shown once; the old one stops working at once
 * (tokens already issued keep working until they expire). Throws not_found (app_not_found) for
 * an app that is not theirs or is disabled.
 */
export async function newClientSecret(deps: Deps, ownerId: number, clientId: string): Promise<string> {
  const secret = generateClientSecret(deps.ids);
  if (!(await store.replaceSecret(deps.db, clientId, ownerId, hashSecret(secret)))) throw notFound('app_not_found', `you have no active app ${clientId}`);
  return secret;
}

/**
 * The owner deletes an app: it stops at once, every donor's connection to it ends with its
 * tokens, and operators cannot enable it again. Audited. Throws not_found (app_not_found).
 */
export async function deleteApp(deps: Deps, ownerId: number, clientId: string): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const at = deps.clock.now().toISOString();
    const id = await store.markDeleted(trx, clientId, ownerId, at);
    if (id === undefined) throw notFound('app_not_found', `you have no app ${clientId}`);
    const grants = await store.endConnectionsOfApp(trx, id, at);
    for (const grant of grants) await store.revokeArtifactsOfGrant(trx, grant);
    const app = await store.findApp(trx, clientId);
    await recordAudit(trx, {
      book: app?.book ?? 'live',
      actor: `user:${ownerId}`,
      action: 'app.delete',
      object_type: 'app',
      object_id: id,
      before: null,
      after: { deleted_at: at, connections_ended: grants.length },
      at,
    });
  });
}

/** An app as the consent page shows it; undefined for an unknown one. */
export async function appByClientId(deps: Deps, clientId: string): Promise<AppView | undefined> {
  const app = await store.findApp(deps.db, clientId);
  return app === undefined ? undefined : viewOf(app);
}

/**
 * The app a donate link names (rules §23) with its return addresses checked: each must be on an
 * origin the app registered, and a link with one must name its app. Throws app_not_found (unknown,
 * disabled, deleted or the sandbox's), return_url_not_registered (naming the field).
 */
export async function donateLinkApp(
  deps: Deps,
  clientId: string | undefined,
  urls: ReadonlyArray<readonly [field: string, url: string | undefined]>,
): Promise<(AppView & { id: number }) | undefined> {
  const given = urls.filter((u): u is readonly [string, string] => u[1] !== undefined && u[1] !== '');
  if (clientId === undefined || clientId === '') {
    const [field] = given[0] ?? [];
    if (field !== undefined)
      throw new AppError('unprocessable', 'return_url_not_registered', `${field} needs app=, the app that registered its address`, {
        errors: [{ field, code: 'return_url_not_registered', message: 'needs the app that registered it (app=)' }],
      });
    return undefined;
  }
  const row = await store.findApp(deps.db, clientId);
  const app = row === undefined ? undefined : { ...viewOf(row), id: row.id };
  if (app === undefined || app.book !== 'live' || app.disabled_at !== null || app.deleted_at !== null) throw notFound('app_not_found', `no app ${clientId}`);
  const errors = given.flatMap(([field, url]) => {
    const problem = returnUrlProblem(url, app.redirect_uris);
    return problem === undefined ? [] : [{ field, code: 'return_url_not_registered' as const, message: problem }];
  });
  if (errors.length > 0) throw new AppError('unprocessable', 'return_url_not_registered', `${errors[0]?.field} ${errors[0]?.message}`, { errors });
  return app;
}

/** Every app (operators), newest first, `limit` at a time before `before` (an app's row id). */
export async function listAllApps(deps: Deps, limit: number, before?: number) {
  const rows = await store.listApps(deps.db, limit, before);
  return rows.map((r) => ({ ...r, redirect_uris: JSON.parse(r.redirect_uris) as string[], connections: Number(r.connections ?? 0) }));
}

/**
 * An operator disables (or enables again) an app, audited: a disabled app's sign-ins, tokens and
 * id tokens are refused at once. Throws not_found (app_not_found), conflict (app_unchanged).
 */
export async function setAppEnabled(deps: Deps, clientId: string, enabled: boolean, actor: string, reason = ''): Promise<AppView> {
  return deps.db.transaction().execute(async (trx) => {
    const before = await store.findApp(trx, clientId);
    if (before === undefined) throw notFound('app_not_found', `no app ${clientId}`);
    if (before.deleted_at !== null) throw new AppError('conflict', 'app_deleted', `app ${clientId} was deleted by its owner and cannot be enabled or disabled`);
    const at = deps.clock.now().toISOString();
    const changed = await store.setAppDisabled(trx, clientId, enabled ? null : at, enabled ? null : reason || 'disabled by the operators');
    if (!changed) throw new AppError('conflict', 'app_unchanged', `app ${clientId} is already ${enabled ? 'enabled' : 'disabled'}`);
    const after = await store.findApp(trx, clientId);
    if (after === undefined) throw notFound('app_not_found', `no app ${clientId}`);
    await recordAudit(trx, {
      book: before.book,
      actor,
      action: enabled ? 'app.enable' : 'app.disable',
      object_type: 'app',
      object_id: before.id,
      before: { disabled_at: before.disabled_at },
      after: { disabled_at: after.disabled_at, reason: after.disabled_reason },
      at,
    });
    return viewOf(after);
  });
}

export interface Consent {
  clientId: string;
  /** The live user who consents. */
  userId: number;
  scopes: readonly string[];
  grantId: string;
  /** For `donate`: what the app may give per calendar month, or null for no limit. */
  monthlyLimitCents: number | null;
}

/**
 * Records a donor's consent to an app: the connection (new, or its scopes and limit changed),
 * and for a sandbox app the donor's sandbox twin, made now so the app's calls find it. A consent
 * without a limit never drops the one the donor set before (ADR 16): only a new amount replaces it.
 */
export async function recordConsent(deps: Deps, consent: Consent): Promise<void> {
  if (consent.monthlyLimitCents !== null) assertSafeInteger(consent.monthlyLimitCents, 'monthly limit');
  await deps.db.transaction().execute(async (trx) => {
    const app = await store.findApp(trx, consent.clientId);
    if (app === undefined || app.disabled_at !== null) throw notFound('app_not_found', `no app ${consent.clientId}`);
    if (app.book === 'test') await sandboxUserFor(deps, consent.userId, trx);
    const at = deps.clock.now().toISOString();
    const existing = await store.activeConnection(trx, app.id, consent.userId);
    const scopes = consent.scopes.join(' ');
    if (existing === undefined) {
      await store.insertConnection(trx, {
        app_id: app.id,
        user_id: consent.userId,
        scopes,
        grant_id: consent.grantId,
        monthly_limit_cents: consent.monthlyLimitCents,
        created_at: at,
        updated_at: at,
      });
    } else {
      const limit = consent.monthlyLimitCents ?? existing.monthly_limit_cents;
      await store.updateConnection(trx, existing.id, { scopes, grant_id: consent.grantId, monthly_limit_cents: limit, updated_at: at });
    }
  });
}

/** What a donor's live connection to an app grants now (the consent page starts from it), or undefined. */
export async function currentConsent(deps: Deps, clientId: string, userId: number): Promise<{ scopes: string[]; monthly_limit_cents: number | null } | undefined> {
  const app = await store.findApp(deps.db, clientId);
  const connection = app === undefined ? undefined : await store.activeConnection(deps.db, app.id, userId);
  return connection === undefined ? undefined : { scopes: connection.scopes.split(' ').filter((s) => s !== ''), monthly_limit_cents: connection.monthly_limit_cents };
}

export interface ConnectionView {
  id: number;
  name: string;
  client_id: string;
  logo_uri: string | null;
  sandbox: boolean;
  disabled: boolean;
  scopes: { scope: string; words: string }[];
  monthly_limit_cents: number | null;
  /** What the app gave this calendar month. */
  spent_this_month_cents: number;
  connected_at: string;
  last_used_at: string | null;
}

/** A donor's connected apps, newest first. */
export async function connectedApps(deps: Deps, userId: number): Promise<ConnectionView[]> {
  const month = monthOf(deps.clock.now());
  return (await store.connectionsOfUser(deps.db, userId, month)).map((c) => ({
    id: c.id,
    name: c.name,
    client_id: c.client_id,
    logo_uri: c.logo_uri,
    sandbox: c.book === 'test',
    disabled: c.disabled_at !== null,
    scopes: c.scopes
      .split(' ')
      .filter((s) => (API_SCOPES as readonly string[]).includes(s) || s === 'email' || s === 'profile' || s === 'offline_access')
      .map((scope) => ({ scope, words: SCOPE_WORDS[scope] ?? scope })),
    monthly_limit_cents: c.monthly_limit_cents,
    spent_this_month_cents: Number(c.spent_cents ?? 0),
    connected_at: c.created_at,
    last_used_at: c.last_used_at,
  }));
}

/** The donor disconnects an app: the connection ends, and with it its grant and every code and token of it. Throws connection_not_found. */
export async function disconnectApp(deps: Deps, userId: number, connectionId: number): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const grantId = await store.revokeConnection(trx, userId, connectionId, deps.clock.now().toISOString());
    if (grantId === undefined) throw notFound('connection_not_found', `no connected app ${connectionId}`);
    await store.revokeArtifactsOfGrant(trx, grantId);
  });
}

/**
 * Counts `cents` an app's token is about to move out of a fund (a donation, a gift, a gift's
 * claim) against the app's monthly limit (a connection without one counts too), then runs `move`;
 * when `move` fails, what was counted is given back. Throws forbidden (app_limit_exceeded) when it
 * does not fit, before `move` runs. A caller that is not an app moves without counting.
 */
export async function spendingAsApp<T>(deps: Deps, caller: Pick<Caller, 'app'>, cents: number, move: () => Promise<T>): Promise<T> {
  const app = caller.app;
  if (app === undefined) return move();
  assertSafeInteger(cents, 'amount an app moves');
  const month = monthOf(deps.clock.now());
  if (!(await store.reserveSpend(deps.db, app.connection_id, month, cents))) {
    throw new AppError(
      'forbidden',
      'app_limit_exceeded',
      `this would pass the monthly limit of ${usdText(app.monthly_limit_cents ?? 0)} the donor set for this app; they can change it by connecting the app again`,
    );
  }
  try {
    return await move();
  } catch (error) {
    await store.releaseSpend(deps.db, app.connection_id, month, cents);
    throw error;
  }
}

/** What an app's token may still move this month under the limit its donor set, or null for no limit (ADR 16). */
export async function leftThisMonth(deps: Deps, caller: Pick<Caller, 'app'>): Promise<number | null> {
  const app = caller.app;
  if (app === undefined || app.monthly_limit_cents === null) return null;
  const spent = await store.spentInMonth(deps.db, app.connection_id, monthOf(deps.clock.now()));
  return Math.max(0, app.monthly_limit_cents - spent);
}

/**
 * A new signing key signs from now on (on each node once it restarts); the older ones are
 * retired: still published and still verifying what they signed, until retention removes them
 * a day after every id token they signed has expired. Returns the new key's id.
 */
export async function rotateSigningKey(deps: Deps): Promise<{ kid: string; retired: number }> {
  const key = await newSigningKey();
  return deps.db.transaction().execute(async (trx) => {
    const at = deps.clock.now().toISOString();
    const id = await store.insertKey(trx, { use: 'signing', secret: JSON.stringify(key), created_at: at });
    const retired = await store.retireOlderSigningKeys(trx, id, at);
    return { kid: String(key.kid), retired };
  });
}

/** Retention: the provider's codes, tokens and sessions past their expiry, and signing keys retired long enough ago. */
export async function pruneLoginRecords(deps: Deps): Promise<number> {
  const now = deps.clock.now().getTime();
  const artifacts = await store.deleteExpiredArtifacts(deps.db, Date.now());
  const keys = await store.removeRetiredKeys(deps.db, new Date(now - (TTL_SECONDS.IdToken + 86_400) * 1000).toISOString());
  return artifacts + keys;
}
