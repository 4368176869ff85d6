// The operator commands of operator tokens and apps (`almoner admin token`, `almoner apps`).
import { ADMIN_TOKEN_MAX_DAYS, adminTokens, createAdminToken, revokeAdminTokenAudited } from '../modules/admin/index.ts';
import { listAllApps, looksLikeClientId, rotateSigningKey, setAppEnabled } from '../modules/apps/index.ts';
import { actor, id, UsageError, withPlatform } from './common.ts';
import { out, type Run } from './operate.run.ts';

export async function adminToken({ values, positionals }: Run): Promise<number> {
  const verb = positionals[0];
  if (verb === 'list') {
    return withPlatform(async ({ deps }) => {
      for (const t of await adminTokens(deps)) {
        out(
          `${String(t.id).padStart(5)}  ${t.state.padEnd(7)}  ...${t.last4}  ${t.name}  made ${t.created_at}  expires ${t.expires_at ?? 'never'}  last used ${t.last_used_at ?? 'never'}`,
        );
      }
      return 0;
    });
  }
  if (verb === 'revoke') {
    const tokenId = id(positionals[1], 'the token id');
    const who = actor();
    return withPlatform(async ({ deps }) => {
      await revokeAdminTokenAudited(deps, tokenId, who);
      out(`Operator token ${tokenId} is revoked: it stops working now, on every node.`);
      return 0;
    });
  }
  if (verb !== 'create') throw new UsageError('usage: almoner admin token create --name NAME [--operator PERSON] [--days N] | list | revoke ID');
  const name = values.name?.trim() ?? '';
  if (name === '' || name.length > 100) throw new UsageError('--name is required (1 to 100 characters)');
  const person = values.operator === undefined ? name : values.operator.trim();
  if (person === '' || person.length > 100) throw new UsageError('--operator is the person the token belongs to (1 to 100 characters)');
  const days = values.days === undefined ? undefined : Number(values.days);
  if (days !== undefined && (!/^\d{1,4}$/.test(values.days ?? '') || days < 1 || days > ADMIN_TOKEN_MAX_DAYS))
    throw new UsageError(`--days must be a whole number from 1 to ${ADMIN_TOKEN_MAX_DAYS}`);
  const who = actor();
  return withPlatform(async ({ deps }) => {
    const token = await createAdminToken(deps, name, who, days, person);
    out(`Operator token ${token.id} "${name}" of ${person} (shown once): ${token.token}`);
    out(token.expires_at === null ? 'It works until revoked (almoner admin token revoke ' + token.id + ').' : `It works until ${token.expires_at}.`);
    return 0;
  });
}

export async function appsList(_run: Run): Promise<number> {
  return withPlatform(async ({ deps }) => {
    const apps = await listAllApps(deps, 100);
    for (const a of apps)
      out(
        `${a.client_id}  ${(a.deleted_at !== null ? 'deleted' : a.disabled_at === null ? 'active' : 'disabled').padEnd(8)} ${a.book === 'test' ? 'sandbox' : 'live   '}  ${String(a.connections).padStart(5)} donors  ${a.name}  (by ${a.owner_slug})`,
      );
    out(`${apps.length} apps (the newest 100)`);
    return 0;
  });
}

export async function appsDisable({ values, positionals, sub }: Run): Promise<number> {
  const clientId = positionals[0] ?? '';
  if (!looksLikeClientId(clientId)) throw new UsageError(`usage: almoner apps ${sub} CLIENT_ID${sub === 'disable' ? ' [--reason TEXT]' : ''} (app_ and 24 letters or digits)`);
  const who = actor();
  return withPlatform(async ({ deps }) => {
    await setAppEnabled(deps, clientId, sub === 'enable', who, values.reason);
    out(sub === 'enable' ? `App ${clientId} is enabled again.` : `App ${clientId} is disabled: its sign-ins, tokens and id tokens are refused now, on every node.`);
    return 0;
  });
}

export async function appsRotateSigningKey(_run: Run): Promise<number> {
  return withPlatform(async ({ deps }) => {
    const rotated = await rotateSigningKey(deps);
    out(`New signing key ${rotated.kid}; ${rotated.retired} older key(s) retired (still published, verifying what they signed).`);
    out('Each node signs with it once it restarts: restart the nodes one at a time.');
    return 0;
  });
}
