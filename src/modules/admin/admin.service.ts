// Operator tokens: `alm_admin_` + 40 base62 characters, stored as SHA-256.
// They are not user keys: they open /admin/v1 only, and every action taken
// with one is audited under its name.
import type { Deps } from '../../deps.ts';
import { hashKey } from '../keys/index.ts';

const TOKEN_PATTERN = /^alm_admin_[0-9A-Za-z]{40}$/;

export interface Operator {
  token_id: number;
  actor: string;
}

export async function createAdminToken(deps: Deps, name: string): Promise<{ id: number; token: string }> {
  const token = `alm_admin_${deps.ids.base62(40)}`;
  const row = await deps.db.insertInto('admin_tokens').values({
    name, token_hash: hashKey(token), last4: token.slice(-4), created_at: deps.clock.now().toISOString(),
  }).returning('id').executeTakeFirstOrThrow();
  return { id: row.id, token };
}

export async function findOperator(deps: Deps, token: string): Promise<Operator | undefined> {
  if (!TOKEN_PATTERN.test(token)) return undefined;
  const row = await deps.db.selectFrom('admin_tokens').select(['id', 'name']).where('token_hash', '=', hashKey(token)).where('revoked_at', 'is', null).executeTakeFirst();
  return row === undefined ? undefined : { token_id: row.id, actor: `admin:${row.name}` };
}
