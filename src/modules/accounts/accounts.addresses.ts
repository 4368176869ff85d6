// An account's address is proven before anything follows it (docs/rules.md §15): a link mailed to
// it at sign-up, at the first sign-in of an account made before, and when the address changes.
// The link works once, for 48 hours, only for the account it was sent for, and only by a POST from
// that account's session (a mail scanner fetching it proves nothing). Until the address is
// proven, nothing waiting at it is shown or handed over: gifts sent to it, an invitation to a
// fund, a successor plan naming it, a charity claim (`isAddressConfirmed`).
import type { Deps } from '../../deps.ts';
import type { Db, Trx } from '../../db/database.ts';
import { AppError, conflict, fieldErrors, notFound } from '../../shared/errors.ts';
import { hashSecret } from '../../shared/secrets.ts';
import { messages, queueMail } from '../mail/index.ts';
import { newSecret, normalizeEmail } from './accounts.ts';
import { verifyPassword } from './passwords.ts';
import * as store from './accounts.store.ts';

/** How long a confirmation link works. */
export const CONFIRMATION_TTL_MS = 48 * 3_600_000;
/** A sign-in sends a new link to an unproven address at most this often. */
export const CONFIRMATION_RESEND_MS = 15 * 60_000;

/** Whether the account's address is proven (false without an account). */
export async function isAddressConfirmed(db: Db | Trx, userId: number): Promise<boolean> {
  const confirmed = (await store.addressOf(db, userId))?.email_confirmed_at;
  return confirmed !== undefined && confirmed !== null;
}

/** Throws forbidden (address_unconfirmed) unless the account's address is proven. */
export async function requireConfirmedAddress(db: Db | Trx, userId: number, what: string): Promise<void> {
  if (!(await isAddressConfirmed(db, userId))) {
    throw new AppError('forbidden', 'address_unconfirmed', `confirm your e-mail address first (follow the link we mailed to it): ${what}`);
  }
}

/** Mails a link proving `email` for the account, in `trx`; any link still open is ended. */
export async function sendAddressConfirmation(deps: Deps, trx: Trx, userId: number, email: string, change: boolean): Promise<void> {
  const token = newSecret();
  const now = deps.clock.now();
  const at = now.toISOString();
  await store.endOpenAddressConfirmations(trx, userId, at);
  await store.insertAddressConfirmation(trx, {
    token_hash: hashSecret(token),
    user_id: userId,
    email,
    created_at: at,
    expires_at: new Date(now.getTime() + CONFIRMATION_TTL_MS).toISOString(),
  });
  const url = `${deps.config.publicUrl}/account/confirm/${token}`;
  await queueMail(trx, [{ ...messages.confirmAddress({ email, url, change }), kind: 'address_confirmation', recipient: email, event_id: null }], at);
}

/**
 * At sign-in: an account whose address is not proven (made before confirmation, or its link
 * lost) is sent a link, at most every CONFIRMATION_RESEND_MS. Returns whether it is proven.
 */
export async function askToConfirm(deps: Deps, userId: number, options: { force?: boolean } = {}): Promise<boolean> {
  return deps.db.transaction().execute(async (trx) => {
    const address = await store.addressOf(trx, userId);
    if (address === undefined || address.email_confirmed_at !== null) return true;
    const last = await store.lastAddressConfirmation(trx, userId);
    const now = deps.clock.now().getTime();
    const recent = last !== undefined && last.email === address.email && last.used_at === null && now - Date.parse(last.created_at) < CONFIRMATION_RESEND_MS;
    if (!recent || options.force === true) await sendAddressConfirmation(deps, trx, userId, address.email, false);
    return false;
  });
}

/** The account's address while it is not proven, or undefined (proven, or no account): what the dashboard asks about. */
export async function unconfirmedAddress(deps: Deps, userId: number): Promise<string | undefined> {
  const address = await store.addressOf(deps.db, userId);
  return address?.email_confirmed_at === null ? address.email : undefined;
}

/** What the settings page says of the account's address: proven, or waiting for the link (and which address). */
export async function addressStatus(deps: Deps, userId: number): Promise<{ email: string; confirmed: boolean; changing_to: string | null }> {
  const address = await store.addressOf(deps.db, userId);
  if (address === undefined) return { email: '', confirmed: true, changing_to: null };
  const last = await store.lastAddressConfirmation(deps.db, userId);
  const open = last !== undefined && last.used_at === null && last.expires_at > deps.clock.now().toISOString();
  return { email: address.email, confirmed: address.email_confirmed_at !== null, changing_to: open && last.email !== address.email ? last.email : null };
}

/**
 * The account follows a link (signed in, by POST): the address it went to becomes the account's,
 * proven. Throws not_found (confirmation_invalid), forbidden (confirmation_other_account),
 * conflict (confirmation_used, confirmation_expired, email_taken: another account took the
 * address meanwhile).
 */
export async function confirmAddress(deps: Deps, userId: number, token: string): Promise<{ email: string }> {
  const hash = hashSecret(token);
  const at = deps.clock.now().toISOString();
  return deps.db.transaction().execute(async (trx) => {
    const link = /^[A-Za-z0-9_-]{43}$/.test(token) ? await store.findAddressConfirmation(trx, hash) : undefined;
    if (link === undefined) throw notFound('confirmation_invalid', 'this confirmation link is unknown: ask for a new one from the dashboard');
    if (link.user_id !== userId) throw new AppError('forbidden', 'confirmation_other_account', 'this link confirms an address for another account: sign in with that one');
    if (link.used_at !== null) throw conflict('confirmation_used', 'this link was used already: the address is confirmed');
    if (link.expires_at <= at) throw conflict('confirmation_expired', 'this link expired, or a newer one was sent: ask for a new one from the dashboard');
    if (!(await store.useAddressConfirmation(trx, hash, at))) throw conflict('confirmation_used', 'this link was used already: the address is confirmed');
    if (!(await store.confirmAccountAddress(trx, userId, link.email, at))) throw conflict('email_taken', `another account signs in with ${link.email} now`);
    return { email: link.email };
  });
}

/**
 * The account asks to sign in with another address: its password is checked, a link goes to the
 * new address (the account keeps the old one until it is followed) and the old address is told.
 * Throws unprocessable (validation_failed: not an address, the same address, the wrong password),
 * conflict (email_taken).
 */
export async function changeAddress(deps: Deps, userId: number, input: { email: string; password: string }): Promise<{ email: string }> {
  const email = normalizeEmail(input.email);
  if (email === null) throw fieldErrors([{ field: 'email', code: 'validation_failed', message: 'must be an email address' }]);
  const address = await store.addressOf(deps.db, userId);
  if (address === undefined) throw notFound('user_not_found', 'this user has no account to sign in with');
  if (address.email === email) throw fieldErrors([{ field: 'email', code: 'validation_failed', message: 'is the address of this account already' }]);
  const hash = await store.passwordHashOf(deps.db, userId);
  if (hash === undefined || !(await verifyPassword(input.password.slice(0, 200), hash))) {
    throw fieldErrors([{ field: 'password', code: 'validation_failed', message: 'is not the password of this account' }]);
  }
  return deps.db.transaction().execute(async (trx) => {
    if (await store.emailHeldByOther(trx, email, userId)) throw conflict('email_taken', 'another account signs in with this address');
    await sendAddressConfirmation(deps, trx, userId, email, true);
    await queueMail(trx, [{ ...messages.addressChanging({ to: email }), kind: 'address_changing', recipient: address.email, event_id: null }], deps.clock.now().toISOString());
    return { email };
  });
}
