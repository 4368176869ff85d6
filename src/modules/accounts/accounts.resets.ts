// Password resets (rules §15): asking answers the same whether or not the
// address has an account; the link is mailed from the outbox, works once, for
// an hour; using it sets the password and ends every session of the account.
// Only the newest link works: asking again ends the ones before, and using one
// ends every other. Only the SHA-256 of the link's token is kept.
import { hashSecret } from '../../shared/secrets.ts';
import { setTimeout } from 'node:timers/promises';
import type { Deps } from '../../deps.ts';
import { fieldErrors, notFound } from '../../shared/errors.ts';
import { messages, queueMail } from '../mail/index.ts';
import * as store from './accounts.store.ts';
import { hashPassword } from './passwords.ts';
import { newSecret, normalizeEmail, passwordProblem } from './accounts.ts';

export const RESET_TTL_MS = 3_600_000;

/**
 * How long asking for a reset takes, at least, whether or not the address has an account: the
 * queued mail's writes (a few milliseconds) must not tell which addresses have one.
 */
export const RESET_ANSWER_MS = 200;

/**
 * Queues a reset link to the address if it has an account of an active user; otherwise does
 * nothing, alike, and in the same time (RESET_ANSWER_MS).
 */
export async function requestPasswordReset(deps: Deps, emailText: string): Promise<void> {
  const email = normalizeEmail(emailText);
  if (email === null) throw fieldErrors([{ field: 'email', code: 'validation_failed', message: 'must be an email address' }]);
  const answerAt = performance.now() + RESET_ANSWER_MS;
  try {
    await queueReset(deps, email);
  } finally {
    await setTimeout(Math.max(0, answerAt - performance.now()));
  }
}

async function queueReset(deps: Deps, email: string): Promise<void> {
  const account = await store.accountForReset(deps.db, email);
  if (account === undefined || account.status !== 'active') return;
  const token = newSecret();
  const now = deps.clock.now();
  const at = now.toISOString();
  await deps.db.transaction().execute(async (trx) => {
    await store.endOpenPasswordResets(trx, account.user_id, at);
    await store.insertPasswordReset(trx, {
      token_hash: hashSecret(token),
      user_id: account.user_id,
      created_at: at,
      expires_at: new Date(now.getTime() + RESET_TTL_MS).toISOString(),
    });
    await queueMail(trx, [{ ...messages.passwordReset({ url: `${deps.config.publicUrl}/reset/${token}` }), kind: 'password_reset', recipient: email, event_id: null }], at);
  });
}

/** Whether a reset link works now (unused, not expired). */
export async function resetLinkWorks(deps: Deps, token: string): Promise<boolean> {
  return (await store.openPasswordReset(deps.db, hashSecret(token), deps.clock.now().toISOString())) !== undefined;
}

/**
 * Sets a new password through a reset link: the link is used up, every other one ended, and every
 * session of the account ended, in one transaction. Throws unprocessable (validation_failed), not_found (reset_link_invalid:
 * unknown, used or expired).
 */
export async function resetPassword(deps: Deps, token: string, password: string): Promise<void> {
  const weak = passwordProblem(password);
  if (weak !== undefined) throw fieldErrors([{ field: 'password', code: 'validation_failed', message: weak }]);
  const hash = hashSecret(token);
  const invalid = () => notFound('reset_link_invalid', 'this link is unknown, used or expired: ask for a new one');
  const open = await store.openPasswordReset(deps.db, hash, deps.clock.now().toISOString());
  if (open === undefined) throw invalid();
  const passwordHash = await hashPassword(password, { N: deps.config.passwordScryptN, r: 8, p: deps.config.passwordScryptP });
  await deps.db.transaction().execute(async (trx) => {
    const at = deps.clock.now().toISOString();
    if (!(await store.usePasswordReset(trx, hash, at))) throw invalid();
    await store.endOpenPasswordResets(trx, open.user_id, at);
    await store.setPasswordEndingSessions(trx, open.user_id, passwordHash, at);
  });
}
