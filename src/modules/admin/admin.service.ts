// Operator tokens: `alm_admin_` + 40 base62 characters, stored as SHA-256.
// They are not user keys: they open /admin/v1 only, and every action taken
// with one is audited under its name.
import { bearerToken } from '../../shared/bearer.ts';
import type { Deps } from '../../deps.ts';
import { hashSecret } from '../../shared/secrets.ts';
import { listAudit, recordAudit, type AuditFilter } from '../audit/index.ts';
import type { Book } from '../../shared/book.ts';
import type { PageRequest } from '../../shared/page.ts';
import { AppError, notFound } from '../../shared/errors.ts';
import { findAdminToken, insertAdminToken, listAdminTokens, revokeAdminToken, touchAdminToken, type AdminTokenView } from './admin.store.ts';

/** A token's last use is written at most this often (as API keys'). */
const LAST_USED_INTERVAL_MS = 60_000;
/** The longest a token may be made to last. */
export const ADMIN_TOKEN_MAX_DAYS = 3650;

const TOKEN_PATTERN = /^alm_admin_[0-9A-Za-z]{40}$/;

export interface Operator {
  token_id: number;
  /** `admin:` and the person the token belongs to: what the audit log names, and what "a second operator" compares. */
  actor: string;
}

/**
 * A new operator token named `name`, belonging to the person `operator` (by default one of the
 * same name), audited as made by `actor`, working for `days` days (undefined: until revoked). Two
 * tokens of one operator act as one person. The token is in the result and nowhere else.
 */
export async function createAdminToken(
  deps: Deps,
  name: string,
  actor: string,
  days?: number,
  operator: string = name,
): Promise<{ id: number; token: string; expires_at: string | null }> {
  if (days !== undefined && (!Number.isInteger(days) || days < 1 || days > ADMIN_TOKEN_MAX_DAYS)) throw new RangeError(`a token lasts 1 to ${ADMIN_TOKEN_MAX_DAYS} days`);
  const token = `alm_admin_${deps.ids.base62(40)}`;
  const now = deps.clock.now();
  const at = now.toISOString();
  const expiresAt = days === undefined ? null : new Date(now.getTime() + days * 86_400_000).toISOString();
  const id = await deps.db.transaction().execute(async (trx) => {
    const made = await insertAdminToken(trx, { name, operator, token_hash: hashSecret(token), last4: token.slice(-4), created_at: at, expires_at: expiresAt });
    await recordAudit(trx, {
      book: 'live',
      actor,
      action: 'admin_token.create',
      object_type: 'admin_token',
      object_id: made,
      before: null,
      after: { name, operator, expires_at: expiresAt },
      at,
    });
    return made;
  });
  return { id, token, expires_at: expiresAt };
}

/** The operator a token acts as, if it works now (not revoked, not expired); notes its use. */
export async function findOperator(deps: Deps, token: string): Promise<Operator | undefined> {
  if (!TOKEN_PATTERN.test(token)) return undefined;
  const now = deps.clock.now();
  const row = await findAdminToken(deps.db, hashSecret(token), now.toISOString());
  if (row === undefined) return undefined;
  const notBefore = new Date(now.getTime() - LAST_USED_INTERVAL_MS).toISOString();
  if (row.last_used_at === null || row.last_used_at < notBefore) await touchAdminToken(deps.db, row.id, now.toISOString(), notBefore);
  return { token_id: row.id, actor: `admin:${row.operator ?? row.name}` };
}

/**
 * The operator of a request's `Authorization: Bearer alm_admin_...` header (the operator API, and
 * /metrics where it shares the public listener). Throws unauthenticated (a 401 with its challenge).
 */
export async function requireOperator(deps: Deps, authorization: string | undefined): Promise<Operator> {
  const token = bearerToken(authorization) ?? '';
  const operator = await findOperator(deps, token);
  if (operator === undefined) {
    throw new AppError('unauthenticated', token === '' ? 'unauthenticated' : 'invalid_api_key', 'send an operator token as Authorization: Bearer alm_admin_...', {
      headers: { 'www-authenticate': 'Bearer' },
    });
  }
  return operator;
}

/** Every operator token with its state: active, expired or revoked. */
export async function adminTokens(deps: Deps): Promise<Array<AdminTokenView & { state: 'active' | 'expired' | 'revoked' }>> {
  const now = deps.clock.now().toISOString();
  return (await listAdminTokens(deps.db)).map((t) => ({ ...t, state: t.revoked_at !== null ? 'revoked' : t.expires_at !== null && t.expires_at <= now ? 'expired' : 'active' }));
}

/** Revokes an operator token at once, audited. Throws admin_token_not_found (also for one revoked already). */
export async function revokeAdminTokenAudited(deps: Deps, id: number, actor: string): Promise<void> {
  const at = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    const before = await revokeAdminToken(trx, id, at);
    if (before === undefined) throw notFound('admin_token_not_found', `no active operator token ${id}`);
    await recordAudit(trx, {
      book: 'live',
      actor,
      action: 'admin_token.revoke',
      object_type: 'admin_token',
      object_id: id,
      before: { name: before.name },
      after: { revoked_at: at },
      at,
    });
  });
}

/** The audit log of a book, newest first, optionally of one object type or object. */
export async function auditLog(deps: Deps, book: Book, filter: AuditFilter, page: PageRequest) {
  const rows = await listAudit(deps.db, book, filter, page);
  return rows.map((r) => ({ ...r, before: r.before === null ? null : JSON.parse(r.before), after: r.after === null ? null : JSON.parse(r.after) }));
}
