// Operator tokens: `alm_admin_` + 40 base62 characters, stored as SHA-256.
// They are not user keys: they open /admin/v1 only, and every action taken
// with one is audited under its name.
import type { Deps } from '../../deps.ts';
import { hashKey } from '../keys/index.ts';
import { listAudit, recordAudit, type AuditFilter } from '../audit/index.ts';
import type { Book } from '../../shared/book.ts';
import type { PageRequest } from '../../shared/page.ts';
import { findAdminToken, insertAdminToken } from './admin.store.ts';

const TOKEN_PATTERN = /^alm_admin_[0-9A-Za-z]{40}$/;

export interface Operator {
  token_id: number;
  actor: string;
}

/** A new operator token, audited as made by `actor`; the token is in the result and nowhere else. */
export async function createAdminToken(deps: Deps, name: string, actor: string): Promise<{ id: number; token: string }> {
  const token = `alm_admin_${deps.ids.base62(40)}`;
  const at = deps.clock.now().toISOString();
  const id = await deps.db.transaction().execute(async (trx) => {
    const made = await insertAdminToken(trx, { name, token_hash: hashKey(token), last4: token.slice(-4), created_at: at });
    await recordAudit(trx, { book: 'live', actor, action: 'admin_token.create', object_type: 'admin_token', object_id: made, before: null, after: { name }, at });
    return made;
  });
  return { id, token };
}

export async function findOperator(deps: Deps, token: string): Promise<Operator | undefined> {
  if (!TOKEN_PATTERN.test(token)) return undefined;
  const row = await findAdminToken(deps.db, hashKey(token));
  return row === undefined ? undefined : { token_id: row.id, actor: `admin:${row.name}` };
}

/** The audit log of a book, newest first, optionally of one object type or object. */
export async function auditLog(deps: Deps, book: Book, filter: AuditFilter, page: PageRequest) {
  const rows = await listAudit(deps.db, book, filter, page);
  return rows.map((r) => ({ ...r, before: r.before === null ? null : JSON.parse(r.before), after: r.after === null ? null : JSON.parse(r.after) }));
}
