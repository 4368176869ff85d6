// Every SQL statement of a user's data: reading all of it for an export, and
// pseudonymising it when they are forgotten. The ledger's amounts, and the
// records that carry them, are kept: only what names or describes a person goes.
import type { Db, Trx } from '../../db/database.ts';

/** Everything stored about a user (and their sandbox twin, when `ids` names it too), by table. */
export async function rowsOfUsers(db: Db, ids: readonly number[]) {
  const funds = await db.selectFrom('funds').selectAll().where('user_id', 'in', ids).orderBy('id').execute();
  const fundIds = funds.map((f) => f.id);
  return {
    users: await db.selectFrom('users').selectAll().where('id', 'in', ids).orderBy('id').execute(),
    account: await db.selectFrom('accounts').select(['user_id', 'email', 'created_at']).where('user_id', 'in', ids).execute(),
    funds,
    fund_causes: fundIds.length === 0 ? [] : await db.selectFrom('fund_causes').selectAll().where('fund_id', 'in', fundIds).execute(),
    api_keys: await db
      .selectFrom('api_keys')
      .select(['id', 'user_id', 'name', 'last4', 'mode', 'created_at', 'last_used_at', 'revoked_at'])
      .where('user_id', 'in', ids)
      .orderBy('id')
      .execute(),
    donations: await db.selectFrom('donations').selectAll().where('user_id', 'in', ids).orderBy('id').execute(),
    scheduled_donations: await db.selectFrom('scheduled_donations').selectAll().where('user_id', 'in', ids).orderBy('id').execute(),
    gifts_given: await db.selectFrom('gifts').selectAll().where('user_id', 'in', ids).orderBy('id').execute(),
    gifts_received: await db.selectFrom('gifts').selectAll().where('recipient_user_id', 'in', ids).orderBy('id').execute(),
    contributions: await db.selectFrom('contributions').selectAll().where('user_id', 'in', ids).orderBy('id').execute(),
    follows: await db
      .selectFrom('follows')
      .selectAll()
      .where((eb) => eb.or([eb('follower_id', 'in', ids), eb('followee_id', 'in', ids)]))
      .execute(),
    events: await db.selectFrom('events').selectAll().where('user_id', 'in', ids).orderBy('id').execute(),
    // The apps they registered (never a secret's hash) and the apps they connected.
    apps: await db
      .selectFrom('apps')
      .select(['id', 'client_id', 'book', 'name', 'redirect_uris', 'logo_uri', 'created_at', 'disabled_at', 'disabled_reason'])
      .where('owner_id', 'in', ids)
      .orderBy('id')
      .execute(),
    app_connections: await db
      .selectFrom('app_connections as c')
      .innerJoin('apps as a', 'a.id', 'c.app_id')
      .select([
        'c.id',
        'a.client_id',
        'a.name as app_name',
        'c.scopes',
        'c.monthly_limit_cents',
        'c.spent_month',
        'c.spent_cents',
        'c.created_at',
        'c.last_used_at',
        'c.revoked_at',
      ])
      .where('c.user_id', 'in', ids)
      .orderBy('c.id')
      .execute(),
  };
}

/**
 * Pseudonymises the users `ids` (a person and their sandbox twin): their names, pictures, city,
 * notes, the names and messages of the gifts they gave, their sign-in and sessions, follows and
 * fund causes go; keys are revoked; recurring donations stop; the apps they connected lose every
 * token at once and the apps they registered are disabled. Amounts, statuses and the journal stay.
 */
export async function pseudonymise(trx: Trx, ids: readonly number[], at: string): Promise<void> {
  for (const id of ids) {
    await trx
      .updateTable('users')
      .set({ name: 'Deleted user', slug: `deleted-${id}`, city: '', avatar_url: null, cover_image_url: null, visible: 0, status: 'deleted' })
      .where('id', '=', id)
      .execute();
  }
  await trx.updateTable('funds').set({ name: 'Fund of a deleted user', summary: '' }).where('user_id', 'in', ids).execute();
  await trx
    .deleteFrom('fund_causes')
    .where('fund_id', 'in', (eb) => eb.selectFrom('funds').select('id').where('user_id', 'in', ids))
    .execute();
  await trx.deleteFrom('accounts').where('user_id', 'in', ids).execute();
  await trx.deleteFrom('web_sessions').where('user_id', 'in', ids).execute();
  await trx
    .deleteFrom('follows')
    .where((eb) => eb.or([eb('follower_id', 'in', ids), eb('followee_id', 'in', ids)]))
    .execute();
  await trx.updateTable('api_keys').set({ revoked_at: at, name: 'revoked (user deleted)' }).where('user_id', 'in', ids).where('revoked_at', 'is', null).execute();
  await trx.updateTable('api_keys').set({ name: 'revoked (user deleted)' }).where('user_id', 'in', ids).execute();
  const grants = trx.selectFrom('app_connections').select('grant_id').where('user_id', 'in', ids).where('revoked_at', 'is', null);
  await trx
    .deleteFrom('oidc_artifacts')
    .where((eb) => eb.or([eb('grant_id', 'in', grants), eb.and([eb('kind', '=', 'Grant'), eb('id', 'in', grants)])]))
    .execute();
  await trx.updateTable('app_connections').set({ revoked_at: at, updated_at: at }).where('user_id', 'in', ids).where('revoked_at', 'is', null).execute();
  await trx
    .updateTable('apps')
    .set({ disabled_at: at, disabled_reason: "its owner's account was deleted" })
    .where('owner_id', 'in', ids)
    .where('disabled_at', 'is', null)
    .execute();
  await trx.updateTable('donations').set({ note: null, private_memo: null, visibility: 'private' }).where('user_id', 'in', ids).execute();
  // Private now, so others count none of them (the lists' meta.count; almoner check recounts it).
  await trx.updateTable('donation_counts').set({ public_total: 0 }).where('user_id', 'in', ids).execute();
  await trx.updateTable('scheduled_donations').set({ note: null, status: 'cancelled', updated_at: at }).where('user_id', 'in', ids).where('status', '=', 'active').execute();
  await trx.updateTable('scheduled_donations').set({ note: null }).where('user_id', 'in', ids).execute();
  await trx.updateTable('gifts').set({ name: 'Deleted', email: null, message: null }).where('user_id', 'in', ids).execute();
  // What operators once recorded about them (a user's name and slug at creation) goes too.
  await trx
    .updateTable('audit_log')
    .set({ before: null, after: JSON.stringify({ pseudonymised: true }) })
    .where('object_type', '=', 'user')
    .where('object_id', 'in', ids)
    .execute();
}
