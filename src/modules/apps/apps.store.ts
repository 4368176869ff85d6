// Every SQL statement of Login with Almoner: apps, connections, the OpenID
// Connect provider's artifacts and keys.
import { sql, type Selectable } from 'kysely';
import type { Db, Trx } from '../../db/database.ts';
import type { AppConnectionsTable, AppsTable, OidcKeysTable } from '../../db/schema.ts';
import type { Book } from '../../shared/book.ts';

export type AppRow = Selectable<AppsTable>;
export type ConnectionRow = Selectable<AppConnectionsTable>;
export type KeyRow = Selectable<OidcKeysTable>;

export async function insertApp(db: Db | Trx, row: Omit<AppRow, 'id' | 'disabled_at' | 'disabled_reason' | 'deleted_at'>): Promise<AppRow> {
  return db.insertInto('apps').values(row).returningAll().executeTakeFirstOrThrow();
}

/** The apps a user registered and has not deleted, newest first. */
export async function appsOfOwner(db: Db, ownerId: number): Promise<AppRow[]> {
  return db.selectFrom('apps').selectAll().where('owner_id', '=', ownerId).where('deleted_at', 'is', null).orderBy('id', 'desc').execute();
}

/** Replaces the secret's hash of an app of `ownerId` that is not disabled; false when there is none. */
export async function replaceSecret(db: Db, clientId: string, ownerId: number, secretHash: string): Promise<boolean> {
  const result = await db
    .updateTable('apps')
    .set({ secret_hash: secretHash })
    .where('client_id', '=', clientId)
    .where('owner_id', '=', ownerId)
    .where('disabled_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Marks an app of `ownerId` deleted (and disabled, if it was not); its row id, or undefined when there is none to delete. */
export async function markDeleted(trx: Trx, clientId: string, ownerId: number, at: string): Promise<number | undefined> {
  const row = await trx
    .updateTable('apps')
    .set((eb) => ({ deleted_at: at, disabled_at: eb.fn.coalesce('disabled_at', eb.val(at)), disabled_reason: eb.fn.coalesce('disabled_reason', eb.val('deleted by its owner')) }))
    .where('client_id', '=', clientId)
    .where('owner_id', '=', ownerId)
    .where('deleted_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

/** Ends every live connection to an app; the grants they held. */
export async function endConnectionsOfApp(trx: Trx, appId: number, at: string): Promise<string[]> {
  const rows = await trx
    .updateTable('app_connections')
    .set({ revoked_at: at, updated_at: at })
    .where('app_id', '=', appId)
    .where('revoked_at', 'is', null)
    .returning('grant_id')
    .execute();
  return rows.map((r) => r.grant_id);
}

/** Every app, newest first, with its owner's slug and how many donors it is connected to (the operators' list). */
export async function listApps(db: Db, limit: number, beforeId: number | undefined) {
  let query = db
    .selectFrom('apps as a')
    .innerJoin('users as u', 'u.id', 'a.owner_id')
    .select(['a.id', 'a.client_id', 'a.name', 'a.book', 'a.created_at', 'a.disabled_at', 'a.disabled_reason', 'a.deleted_at', 'u.slug as owner_slug', 'a.redirect_uris'])
    .select((eb) =>
      eb
        .selectFrom('app_connections as c')
        .whereRef('c.app_id', '=', 'a.id')
        .where('c.revoked_at', 'is', null)
        .select((e) => e.fn.countAll<number>().as('n'))
        .as('connections'),
    )
    .orderBy('a.id', 'desc')
    .limit(limit);
  if (beforeId !== undefined) query = query.where('a.id', '<', beforeId);
  return query.execute();
}

export async function findApp(db: Db | Trx, clientId: string): Promise<AppRow | undefined> {
  return db.selectFrom('apps').selectAll().where('client_id', '=', clientId).executeTakeFirst();
}

/** Disables (at, reason) or enables (null) an app; false when there is no such app or nothing changed. */
export async function setAppDisabled(db: Db | Trx, clientId: string, at: string | null, reason: string | null): Promise<boolean> {
  const result = await db
    .updateTable('apps')
    .set({ disabled_at: at, disabled_reason: reason })
    .where('client_id', '=', clientId)
    .where('disabled_at', at === null ? 'is not' : 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function activeConnection(db: Db | Trx, appId: number, userId: number): Promise<ConnectionRow | undefined> {
  return db.selectFrom('app_connections').selectAll().where('app_id', '=', appId).where('user_id', '=', userId).where('revoked_at', 'is', null).executeTakeFirst();
}

export async function insertConnection(
  trx: Trx,
  row: Pick<ConnectionRow, 'app_id' | 'user_id' | 'scopes' | 'grant_id' | 'monthly_limit_cents' | 'created_at' | 'updated_at'>,
): Promise<ConnectionRow> {
  return trx.insertInto('app_connections').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateConnection(trx: Trx, id: number, change: Pick<ConnectionRow, 'scopes' | 'grant_id' | 'monthly_limit_cents' | 'updated_at'>): Promise<void> {
  await trx.updateTable('app_connections').set(change).where('id', '=', id).where('revoked_at', 'is', null).execute();
}

/** A user's live connections with their apps, newest first (Connected apps). */
export async function connectionsOfUser(db: Db, userId: number, month: string) {
  return db
    .selectFrom('app_connections as c')
    .innerJoin('apps as a', 'a.id', 'c.app_id')
    .leftJoin('app_spending as s', (join) => join.onRef('s.connection_id', '=', 'c.id').on('s.month', '=', month))
    .select(['c.id', 'c.scopes', 'c.monthly_limit_cents', 's.spent_cents', 'c.created_at', 'c.last_used_at', 'a.name', 'a.client_id', 'a.logo_uri', 'a.book', 'a.disabled_at'])
    .where('c.user_id', '=', userId)
    .where('c.revoked_at', 'is', null)
    .orderBy('c.id', 'desc')
    .execute();
}

/** Ends a user's connection; returns its grant id, or undefined when it is not theirs or already ended. */
export async function revokeConnection(trx: Trx, userId: number, connectionId: number, at: string): Promise<string | undefined> {
  const row = await trx
    .updateTable('app_connections')
    .set({ revoked_at: at, updated_at: at })
    .where('id', '=', connectionId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .returning('grant_id')
    .executeTakeFirst();
  return row?.grant_id;
}

/** Writes last_used_at unless another request did so within the interval. */
export async function touchConnection(db: Db, id: number, now: string, notBefore: string): Promise<void> {
  await db
    .updateTable('app_connections')
    .set({ last_used_at: now })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', notBefore)]))
    .execute();
}

/**
 * Counts `cents` against the connection's monthly limit, if it fits: one guarded statement on the
 * month's row (app_spending), so that concurrent requests never pass the limit together, with the
 * limit it was counted under. A month's first count starts from what the previous release counted
 * on the connection for that month (its `spent_cents`), so an upgrade does not open the limit again.
 */
export async function reserveSpend(db: Db | Trx, connectionId: number, month: string, cents: number): Promise<boolean> {
  const result = await db
    .insertInto('app_spending')
    .columns(['connection_id', 'month', 'spent_cents', 'limit_cents'])
    .expression(
      db
        .selectFrom('app_connections as c')
        .select((eb) => [
          'c.id',
          sql<string>`cast(${month} as text)`.as('month'),
          sql<number>`cast(${cents} as bigint) + (case when c.spent_month = cast(${month} as text) then c.spent_cents else 0 end)`.as('spent_cents'),
          eb.ref('c.monthly_limit_cents').as('limit_cents'),
        ])
        .where('c.id', '=', connectionId)
        .where('c.revoked_at', 'is', null)
        .where((eb) =>
          eb.or([
            eb('c.monthly_limit_cents', 'is', null),
            eb(sql<number>`cast(${cents} as bigint) + (case when c.spent_month = cast(${month} as text) then c.spent_cents else 0 end)`, '<=', eb.ref('c.monthly_limit_cents')),
          ]),
        ),
    )
    .onConflict((oc) =>
      oc
        .columns(['connection_id', 'month'])
        .doUpdateSet((eb) => ({ spent_cents: eb('app_spending.spent_cents', '+', cents), limit_cents: eb.ref('excluded.limit_cents') }))
        .where((eb) => eb.or([eb('excluded.limit_cents', 'is', null), eb(eb('app_spending.spent_cents', '+', cents), '<=', eb.ref('excluded.limit_cents'))])),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** What reserveSpend has counted on the connection in `month` (from the previous release's count where the month has no row yet). */
export async function spentInMonth(db: Db | Trx, connectionId: number, month: string): Promise<number> {
  const row = await db
    .selectFrom('app_connections as c')
    .leftJoin('app_spending as s', (j) => j.onRef('s.connection_id', '=', 'c.id').on('s.month', '=', month))
    .select(['s.spent_cents as counted', 'c.spent_month', 'c.spent_cents'])
    .where('c.id', '=', connectionId)
    .executeTakeFirst();
  if (row === undefined) return 0;
  return Number(row.counted ?? (row.spent_month === month ? row.spent_cents : 0));
}

/**
 * Gives back what reserveSpend counted for money that was then not moved: a month's row that
 * this alone made goes again, so that a refused request leaves nothing behind.
 */
export async function releaseSpend(db: Db | Trx, connectionId: number, month: string, cents: number): Promise<void> {
  const gone = await db.deleteFrom('app_spending').where('connection_id', '=', connectionId).where('month', '=', month).where('spent_cents', '=', cents).executeTakeFirst();
  if (Number(gone.numDeletedRows) > 0) return;
  await db
    .updateTable('app_spending')
    .set((eb) => ({ spent_cents: eb('spent_cents', '-', cents) }))
    .where('connection_id', '=', connectionId)
    .where('month', '=', month)
    .where('spent_cents', '>=', cents)
    .execute();
}

/** The person an app acts for in `book` for the live user `liveUserId` (themselves, or their sandbox twin). */
export async function actingUser(db: Db, liveUserId: number, book: Book) {
  return db
    .selectFrom('users as u')
    .leftJoin('users as o', 'o.id', 'u.sandbox_of')
    .select(['u.id as user_id', 'u.book', 'u.status as own_status', 'o.status as owner_status'])
    .where(book === 'live' ? 'u.id' : 'u.sandbox_of', '=', liveUserId)
    .where('u.book', '=', book)
    .executeTakeFirst();
}

// The provider's artifacts (its adapter, oidc.adapter.ts).

export interface Artifact {
  payload: string;
  consumed_at: number | null;
}

export async function upsertArtifact(
  db: Db,
  row: { kind: string; id: string; payload: string; grant_id: string | null; uid: string | null; expires_at: number | null },
): Promise<void> {
  await db
    .insertInto('oidc_artifacts')
    .values({ ...row, consumed_at: null })
    .onConflict((oc) => oc.columns(['kind', 'id']).doUpdateSet({ payload: row.payload, grant_id: row.grant_id, uid: row.uid, expires_at: row.expires_at }))
    .execute();
}

export async function findArtifact(db: Db, kind: string, id: string, now: number): Promise<Artifact | undefined> {
  return db
    .selectFrom('oidc_artifacts')
    .select(['payload', 'consumed_at'])
    .where('kind', '=', kind)
    .where('id', '=', id)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirst();
}

export async function findArtifactByUid(db: Db, kind: string, uid: string, now: number): Promise<Artifact | undefined> {
  return db
    .selectFrom('oidc_artifacts')
    .select(['payload', 'consumed_at'])
    .where('kind', '=', kind)
    .where('uid', '=', uid)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirst();
}

export async function consumeArtifact(db: Db, kind: string, id: string, now: number): Promise<void> {
  await db.updateTable('oidc_artifacts').set({ consumed_at: now }).where('kind', '=', kind).where('id', '=', id).execute();
}

export async function destroyArtifact(db: Db, kind: string, id: string): Promise<void> {
  await db.deleteFrom('oidc_artifacts').where('kind', '=', kind).where('id', '=', id).execute();
}

/** Every code, token and the grant itself of a grant: what ends a connection. */
export async function revokeArtifactsOfGrant(db: Db | Trx, grantId: string): Promise<number> {
  const deleted = await db
    .deleteFrom('oidc_artifacts')
    .where((eb) => eb.or([eb('grant_id', '=', grantId), eb.and([eb('kind', '=', 'Grant'), eb('id', '=', grantId)])]))
    .executeTakeFirst();
  return Number(deleted.numDeletedRows);
}

/** Deletes artifacts that expired before `before` (retention). */
export async function deleteExpiredArtifacts(db: Db, before: number): Promise<number> {
  const deleted = await db.deleteFrom('oidc_artifacts').where('expires_at', '<', before).executeTakeFirst();
  return Number(deleted.numDeletedRows);
}

// The provider's keys.

export async function currentKeys(db: Db): Promise<KeyRow[]> {
  return db.selectFrom('oidc_keys').selectAll().orderBy('id', 'desc').execute();
}

export async function insertKey(db: Db | Trx, row: { use: 'signing' | 'cookie'; secret: string; created_at: string }): Promise<number> {
  const inserted = await db.insertInto('oidc_keys').values(row).returning('id').executeTakeFirstOrThrow();
  return inserted.id;
}

/** Retires every signing key but the newest: they verify what they signed, and sign nothing. */
export async function retireOlderSigningKeys(trx: Trx, newestId: number, at: string): Promise<number> {
  const result = await trx
    .updateTable('oidc_keys')
    .set({ retired_at: at })
    .where('use', '=', 'signing')
    .where('id', '<', newestId)
    .where('retired_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Removes retired signing keys retired before `before`: nothing they signed is still valid. */
export async function removeRetiredKeys(db: Db, before: string): Promise<number> {
  const result = await db.deleteFrom('oidc_keys').where('use', '=', 'signing').where('retired_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** What the id token and userinfo may say of a live user. */
export async function accountClaims(db: Db, userId: number) {
  return db
    .selectFrom('users as u')
    .leftJoin('accounts as a', 'a.user_id', 'u.id')
    .select(['u.id', 'u.name', 'u.slug', 'u.status', 'a.email'])
    .where('u.id', '=', userId)
    .where('u.book', '=', 'live')
    .executeTakeFirst();
}
