// Use cases for web accounts: sign up (a user with a fund, an account and a
// first session, in one transaction), sign in (throttled; always a new
// session, so a session id planted before sign-in is worthless), sign out.
import { hashSecret } from '../../shared/secrets.ts';
import type { Deps } from '../../deps.ts';
import { AppError, conflict, fieldErrors, notFound, type FieldError } from '../../shared/errors.ts';
import { createUser } from '../users/index.ts';
import { actingOf, type Acting } from '../members/index.ts';
import type { Caller } from '../../shared/caller.ts';
import type { Trx } from '../../db/database.ts';
import { hashPassword, verifyPassword, type ScryptCost } from './passwords.ts';
import { newSecret, normalizeEmail, passwordProblem, SIGN_IN_FAILURES_PER_EMAIL, SIGN_IN_FAILURES_PER_IP, SIGN_IN_WINDOW_MS } from './accounts.ts';
import * as store from './accounts.store.ts';
import { askToConfirm, sendAddressConfirmation } from './accounts.addresses.ts';

export const NAME_MAX = 200;

export interface SignUp {
  name: string;
  email: string;
  password: string;
}

export interface Opened {
  /** The cookie value: shown to the browser once, stored only as its hash. */
  token: string;
  user_id: number;
}

function cost(deps: Deps): ScryptCost {
  return { N: deps.config.passwordScryptN, r: 8, p: deps.config.passwordScryptP };
}

async function openSession(deps: Deps, db: Trx | Deps['db'], userId: number): Promise<Opened> {
  const token = newSecret();
  const now = deps.clock.now();
  await store.insertSession(db, {
    id_hash: hashSecret(token),
    user_id: userId,
    csrf_token: newSecret(),
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + deps.config.sessionTtlHours * 3_600_000).toISOString(),
  });
  return { token, user_id: userId };
}

/** Throws unprocessable (validation_failed, listing every field), conflict (email_taken). */
export async function signUp(deps: Deps, input: SignUp): Promise<Opened> {
  const name = input.name.trim();
  const email = normalizeEmail(input.email);
  const errors: FieldError[] = [];
  if (name === '') errors.push({ field: 'name', code: 'validation_failed', message: 'is required' });
  else if ([...name].length > NAME_MAX) errors.push({ field: 'name', code: 'validation_failed', message: `must be at most ${NAME_MAX} characters` });
  if (email === null) errors.push({ field: 'email', code: 'validation_failed', message: 'must be an email address' });
  const weak = passwordProblem(input.password);
  if (weak !== undefined) errors.push({ field: 'password', code: 'validation_failed', message: weak });
  if (errors.length > 0 || email === null) throw fieldErrors(errors);
  const passwordHash = await hashPassword(input.password, cost(deps));
  return deps.db.transaction().execute(async (trx) => {
    const user = await createUser(deps, { name }, trx);
    const created = await store.insertAccount(trx, { user_id: user.user_id, email, password_hash: passwordHash, created_at: deps.clock.now().toISOString() });
    if (!created) throw conflict('email_taken', 'an account with this email exists; sign in instead');
    await sendAddressConfirmation(deps, trx, user.user_id, email, false);
    return openSession(deps, trx, user.user_id);
  });
}

/**
 * Gives an existing user (the demo's, or one an operator made) an email and
 * password for the web; in `trx` when given (the user's own creation). A link
 * to confirm the address is mailed to it, unless `confirmed` (the demo's
 * people, whose example addresses no one reads). Throws validation_failed, email_taken.
 */
export async function addAccount(deps: Deps, userId: number, emailText: string, password: string, trx?: Trx, options: { confirmed?: boolean } = {}): Promise<void> {
  const insert = await addAccountRow(deps, userId, emailText, password, options.confirmed === true);
  if (trx !== undefined) await insert(trx);
  else await deps.db.transaction().execute(insert);
}

/**
 * Checks an email and password and hashes the password (slow: outside any transaction);
 * returns the insert to run in one. Throws unprocessable (validation_failed); the insert, email_taken.
 */
async function addAccountRow(deps: Deps, userId: number, emailText: string, password: string, confirmed = false): Promise<(t: Trx) => Promise<void>> {
  const email = normalizeEmail(emailText);
  const weak = passwordProblem(password);
  if (email === null) throw fieldErrors([{ field: 'email', code: 'validation_failed', message: 'must be an email address' }]);
  if (weak !== undefined) throw fieldErrors([{ field: 'password', code: 'validation_failed', message: weak }]);
  const passwordHash = await hashPassword(password, cost(deps));
  return async (t: Trx) => {
    const at = deps.clock.now().toISOString();
    if (!(await store.insertAccount(t, { user_id: userId, email, password_hash: passwordHash, created_at: at, ...(confirmed ? { email_confirmed_at: at } : {}) }))) {
      throw conflict('email_taken', `an account with the email ${email} exists`);
    }
    if (!confirmed) await sendAddressConfirmation(deps, t, userId, email, false);
  };
}

function refused(): AppError {
  return new AppError('unauthenticated', 'invalid_credentials', 'the email or the password is wrong');
}

/**
 * Checks the password and opens a new session; `previousToken`, the session
 * the browser held before, is ended. Throws rate_limited (too_many_sign_ins),
 * unauthenticated (invalid_credentials), forbidden (account_suspended).
 */
export async function signIn(deps: Deps, input: { email: string; password: string; ip: string }, previousToken?: string): Promise<Opened> {
  const now = deps.clock.now();
  const since = new Date(now.getTime() - SIGN_IN_WINDOW_MS).toISOString();
  const email = normalizeEmail(input.email) ?? input.email.trim().toLowerCase().slice(0, 254);
  // The attempt takes its place in the throttle before its password is evaluated (accounts.store.ts reserveAttempt).
  const reserved = await store.reserveAttempt(deps.db, { email, ip: input.ip, at: now.toISOString() }, since, {
    email: SIGN_IN_FAILURES_PER_EMAIL,
    ip: SIGN_IN_FAILURES_PER_IP,
  });
  if ('over' in reserved) {
    const retryMs = reserved.oldest === undefined ? SIGN_IN_WINDOW_MS : Date.parse(reserved.oldest) + SIGN_IN_WINDOW_MS - now.getTime();
    const retrySeconds = Math.max(1, Math.ceil(retryMs / 1000));
    throw new AppError('rate_limited', 'too_many_sign_ins', `too many failed sign-ins; try again in ${Math.ceil(retrySeconds / 60)} minutes`, {
      headers: { 'retry-after': String(retrySeconds) },
    });
  }
  const account = await store.findAccountByEmail(deps.db, email);
  // An unknown email costs the same work as a wrong password, so timing does not tell which.
  let ok = false;
  if (account === undefined) await hashPassword(input.password.slice(0, 200), cost(deps));
  else ok = await verifyPassword(input.password.slice(0, 200), account.password_hash);
  // A wrong password leaves its reservation as the failure it was.
  if (!ok || account === undefined) throw refused();
  const opened = await deps.db.transaction().execute(async (trx) => {
    if ((await store.statusOfUser(trx, account.user_id)) !== 'active') return undefined;
    await store.clearFailures(trx, email);
    if (previousToken !== undefined) await store.deleteSession(trx, hashSecret(previousToken));
    await store.deleteExpiredSessionsOf(trx, account.user_id, now.toISOString());
    return openSession(deps, trx, account.user_id);
  });
  if (opened === undefined) {
    // The right password of a suspended account is no failure.
    await store.releaseAttempt(deps.db, reserved.id);
    throw new AppError('forbidden', 'account_suspended', 'this account is suspended');
  }
  // An account whose address is not proven yet (one made before confirmation) is sent a link.
  await askToConfirm(deps, account.user_id);
  return opened;
}

export async function signOut(deps: Deps, token: string): Promise<void> {
  await store.deleteSession(deps.db, hashSecret(token));
}

/** A signed-in person and the fund they act on (rules §20): `user_id` is the person, `acting` the caller's part. */
export type Session = store.StoredSession & { acting: Acting };

/** The live session a cookie names, or undefined (unknown, expired, or its user, or their fund's holder, suspended). */
export async function sessionFor(deps: Deps, token: string): Promise<Session | undefined> {
  const session = await store.findSession(deps.db, hashSecret(token), deps.clock.now().toISOString());
  if (session?.user_status !== 'active') return undefined;
  const acting = await actingOf(deps.db, { user_id: session.user_id, own_status: session.user_status, owner_status: null });
  return acting === undefined ? undefined : { ...session, acting };
}

/** The web acts for a signed-in person through the same service functions as an API key, on the fund they act on. */
export function callerOf(session: Session): Caller {
  return { ...session.acting, key_id: 0, mode: 'live', book: 'live', last_used_at: null };
}

export async function accountEmail(deps: Deps, userId: number): Promise<string | undefined> {
  return store.emailOf(deps.db, userId);
}

/** How long a sign-in invitation works. */
export const INVITATION_TTL_DAYS = 7;

/**
 * A one-time link for a user an operator made, to choose their sign-in email and password
 * (the web's /invite/<token>). Only the token's hash is kept; the link is in the result only.
 * Throws user_not_found (not a live, active user), conflict (account_exists).
 */
export async function inviteUser(deps: Deps, userId: number, trx?: Trx): Promise<{ url: string; expires_at: string }> {
  const token = newSecret();
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + INVITATION_TTL_DAYS * 86_400_000).toISOString();
  const write = async (t: Trx) => {
    if ((await store.statusOfUser(t, userId).catch(() => undefined)) !== 'active') throw notFound('user_not_found', `no active user ${userId}`);
    if (await store.hasAccount(t, userId)) throw conflict('account_exists', `user ${userId} signs in already`);
    await store.insertInvitation(t, { token_hash: hashSecret(token), user_id: userId, created_at: now.toISOString(), expires_at: expiresAt });
  };
  if (trx !== undefined) await write(trx);
  else await deps.db.transaction().execute(write);
  return { url: `${deps.config.publicUrl}/invite/${token}`, expires_at: expiresAt };
}

/** Whether an invitation link works now (unused, not expired, for a user still active). */
export async function invitationWorks(deps: Deps, token: string): Promise<boolean> {
  const invited = await store.openInvitation(deps.db, hashSecret(token), deps.clock.now().toISOString());
  return (
    invited !== undefined &&
    (await deps.db
      .transaction()
      .execute((trx) => store.statusOfUser(trx, invited.user_id))
      .catch(() => undefined)) === 'active'
  );
}

/**
 * The invited person chooses their email and password: the account is made, the link used up,
 * and a session opened, in one transaction. Throws not_found (invitation_not_found: unknown,
 * used or expired), unprocessable (validation_failed), conflict (email_taken).
 */
export async function acceptInvitation(deps: Deps, token: string, email: string, password: string): Promise<Opened> {
  const now = deps.clock.now().toISOString();
  const hash = hashSecret(token);
  const invited = await store.openInvitation(deps.db, hash, now);
  if (invited === undefined) throw notFound('invitation_not_found', 'this invitation is unknown, used or expired');
  const insert = await addAccountRow(deps, invited.user_id, email, password);
  return deps.db.transaction().execute(async (trx) => {
    // An invitation is for an active user: one suspended (or forgotten) since cannot take it up.
    if ((await store.statusOfUser(trx, invited.user_id).catch(() => undefined)) !== 'active') throw notFound('invitation_not_found', 'this invitation is no longer valid');
    if (!(await store.useInvitation(trx, hash, now))) throw notFound('invitation_not_found', 'this invitation is unknown, used or expired');
    await insert(trx);
    return openSession(deps, trx, invited.user_id);
  });
}
