// Every SQL statement about webhook endpoints, deliveries and attempts.
import { dialectOf } from '../../db/dialect.ts';
import { sql, type ExpressionBuilder, type Insertable, type Selectable } from 'kysely';
import type { Db, Trx } from '../../db/database.ts';
import type { Database, WebhookDeliveriesTable, WebhookEndpointsTable } from '../../db/schema.ts';
import type { Book } from '../../shared/book.ts';
import { countByStatus } from '../../db/outbox.ts';
import { offsetOf, type PageRequest } from '../../shared/page.ts';

export type Endpoint = Selectable<WebhookEndpointsTable>;
export type Delivery = Selectable<WebhookDeliveriesTable>;

export async function insertEndpoint(db: Db | Trx, endpoint: Insertable<WebhookEndpointsTable>): Promise<number> {
  return (await db.insertInto('webhook_endpoints').values(endpoint).returning('id').executeTakeFirstOrThrow()).id;
}

/** A user's endpoint of `book` that is not deleted, or undefined. */
export async function findEndpoint(db: Db | Trx, book: Book, userId: number, id: number): Promise<OwnEndpoint | undefined> {
  return db
    .selectFrom('webhook_endpoints as w')
    .leftJoin('apps as a', 'a.id', 'w.app_id')
    .selectAll('w')
    .select('a.client_id as app_client_id')
    .where('w.id', '=', id)
    .where('w.book', '=', book)
    .where('w.user_id', '=', userId)
    .where('w.deleted_at', 'is', null)
    .executeTakeFirst();
}

/** An endpoint as its owner reads it: with the client id of the app it is of, if any. */
export type OwnEndpoint = Endpoint & { app_client_id: string | null };

/** Any endpoint by id (the delivery worker's and operators' view). */
export async function endpointById(db: Db | Trx, id: number): Promise<Endpoint | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function pageOfEndpoints(db: Db, book: Book, userId: number, page: PageRequest): Promise<{ rows: OwnEndpoint[]; count: number }> {
  const base = db.selectFrom('webhook_endpoints as w').where('w.book', '=', book).where('w.user_id', '=', userId).where('w.deleted_at', 'is', null);
  const [counted, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    base
      .leftJoin('apps as a', 'a.id', 'w.app_id')
      .selectAll('w')
      .select('a.client_id as app_client_id')
      .orderBy('w.id', 'desc')
      .limit(page.per_page)
      .offset(offsetOf(page))
      .execute(),
  ]);
  return { rows, count: Number(counted.n) };
}

export async function updateEndpoint(db: Db | Trx, id: number, fields: Partial<Insertable<WebhookEndpointsTable>>): Promise<void> {
  await db.updateTable('webhook_endpoints').set(fields).where('id', '=', id).execute();
}

/** Deletes an endpoint (kept for its attempts' history) and ends what it still had to deliver. */
export async function deleteEndpoint(trx: Trx, id: number, at: string): Promise<void> {
  await trx.updateTable('webhook_endpoints').set({ deleted_at: at, disabled: 1, updated_at: at }).where('id', '=', id).execute();
  await trx.updateTable('webhook_deliveries').set({ status: 'failed', claimed_until: null }).where('endpoint_id', '=', id).where('status', '=', 'pending').execute();
}

/** The endpoints not deleted that `makers` made for the funds of `holders` (a member's, when they leave). */
export async function endpointsMadeBy(trx: Trx, holders: readonly number[], makers: readonly number[]): Promise<number[]> {
  if (holders.length === 0 || makers.length === 0) return [];
  const rows = await trx.selectFrom('webhook_endpoints').select('id').where('user_id', 'in', holders).where('created_by', 'in', makers).where('deleted_at', 'is', null).execute();
  return rows.map((r) => r.id);
}

/** The live endpoints of these users' funds (enabled, not deleted; not an app's). */
export async function endpointsOfUsers(db: Db | Trx, userIds: readonly number[]): Promise<Array<Pick<Endpoint, 'id' | 'user_id' | 'event_types'>>> {
  if (userIds.length === 0) return [];
  return db
    .selectFrom('webhook_endpoints')
    .select(['id', 'user_id', 'event_types'])
    .where('user_id', 'in', [...userIds])
    .where('app_id', 'is', null)
    .where('disabled', '=', 0)
    .where('deleted_at', 'is', null)
    .execute();
}

/** The live endpoints of these apps (rules §25): enabled, not deleted. */
export async function endpointsOfApps(db: Db | Trx, appIds: readonly number[]): Promise<Array<Pick<Endpoint, 'id' | 'user_id' | 'event_types'> & { app_id: number }>> {
  if (appIds.length === 0) return [];
  const rows = await db
    .selectFrom('webhook_endpoints')
    .select(['id', 'user_id', 'event_types', 'app_id'])
    .where('app_id', 'in', [...appIds])
    .where('disabled', '=', 0)
    .where('deleted_at', 'is', null)
    .execute();
  return rows.map((r) => ({ ...r, app_id: Number(r.app_id) }));
}

/** The app an endpoint would be of: by its client id, with its owner and book (rules §25). */
export async function appForEndpoint(db: Db | Trx, clientId: string) {
  return db.selectFrom('apps').select(['id', 'owner_id', 'book', 'deleted_at']).where('client_id', '=', clientId).executeTakeFirst();
}

/** Writes deliveries; one per endpoint and event (a unique index), so a relay run twice writes none twice. */
export async function insertDeliveries(trx: Trx, deliveries: ReadonlyArray<Insertable<WebhookDeliveriesTable>>): Promise<void> {
  for (let i = 0; i < deliveries.length; i += 200) {
    await trx
      .insertInto('webhook_deliveries')
      .values(deliveries.slice(i, i + 200))
      .onConflict((oc) => oc.columns(['endpoint_id', 'event_id']).where('event_id', 'is not', null).doNothing())
      .execute();
  }
}

/**
 * Claims due deliveries until `leaseUntil`, fairly between their endpoints' owners: at most
 * `perOwner` of each owner, each owner's oldest first, up to `limit` in all, the owners' first
 * ones before anyone's second (so one owner's backlog never fills a claim); none of the endpoints
 * or owners in `skip` (what this node is sending already). Marked claimed in one transaction;
 * PostgreSQL skips rows another worker has locked. Returns them with their owner.
 */
export async function claimDueDeliveries(
  db: Db,
  now: string,
  leaseUntil: string,
  limit: number,
  perOwner: number,
  skip: { endpoints: readonly number[]; owners: readonly number[] } = { endpoints: [], owners: [] },
): Promise<Array<Delivery & { owner_id: number }>> {
  const ids = await db.transaction().execute(async (trx) => {
    const ranked = trx
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
      .select(['d.id', 'd.next_at', sql<number>`row_number() over (partition by e.user_id order by d.next_at, d.id)`.as('turn')])
      .where('d.status', '=', 'pending')
      .where('d.next_at', '<=', now)
      .where((eb) => eb.or([eb('d.claimed_until', 'is', null), eb('d.claimed_until', '<', now)]))
      .$if(skip.endpoints.length > 0, (q) => q.where('d.endpoint_id', 'not in', [...skip.endpoints]))
      .$if(skip.owners.length > 0, (q) => q.where('e.user_id', 'not in', [...skip.owners]))
      .as('r');
    const fair = trx.selectFrom(ranked).select('r.id').where('r.turn', '<=', perOwner).orderBy('r.turn').orderBy('r.next_at').limit(limit);
    // The lease is asked again of the row that is locked, and again by the update: on PostgreSQL a
    // row another worker claimed and committed after this statement's snapshot is locked, not
    // skipped, and only conditions on the locked row itself are re-read at its newest version.
    const unclaimed = (eb: ExpressionBuilder<Database, 'webhook_deliveries'>) =>
      eb.and([eb('status', '=', 'pending'), eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)])]);
    let due = trx.selectFrom('webhook_deliveries').select('id').where('id', 'in', fair).where(unclaimed);
    due = dialectOf(trx).claimRows(due);
    const locked = (await due.execute()).map((r) => r.id);
    if (locked.length === 0) return [];
    const claimed = await trx.updateTable('webhook_deliveries').set({ claimed_until: leaseUntil }).where('id', 'in', locked).where(unclaimed).returning('id').execute();
    return claimed.map((r) => r.id);
  });
  if (ids.length === 0) return [];
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .selectAll('d')
    .select('e.user_id as owner_id')
    .where('d.id', 'in', ids)
    .orderBy('d.next_at')
    .orderBy('d.id')
    .execute();
}

/** Locks the user's row until `trx` ends (PostgreSQL; SQLite's writer is alone anyway): endpoints are counted and made one request at a time. */
export async function lockOwner(trx: Trx, userId: number): Promise<void> {
  await dialectOf(trx)
    .lockRows(trx.selectFrom('users').select('id').where('id', '=', userId))
    .execute();
}

/** How many endpoints a user has that are not deleted (the cap on them). */
export async function liveEndpointCount(db: Db | Trx, userId: number): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export type AttemptRow = { delivery_id: number; endpoint_id: number; at: string; status_code: number | null; duration_ms: number; error: string | null; succeeded: number };

/** Writes attempts, many rows a statement. */
export async function insertAttempts(trx: Trx, attempts: readonly AttemptRow[]): Promise<void> {
  for (let i = 0; i < attempts.length; i += 200)
    await trx
      .insertInto('webhook_attempts')
      .values(attempts.slice(i, i + 200))
      .execute();
}

/** Settles a claimed delivery after an attempt: delivered, due again at `next_at`, or failed for good. */
export async function settleDelivery(trx: Trx, id: number, fields: { status: string; attempts: number; next_at?: string; delivered_at?: string | null }): Promise<void> {
  await trx
    .updateTable('webhook_deliveries')
    .set({ ...fields, claimed_until: null })
    .where('id', '=', id)
    .execute();
}

/** Gives back claims a worker did not get to (its lease would have run out first): due again at once, for any worker. */
export async function releaseClaims(db: Db, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('webhook_deliveries')
    .set({ claimed_until: null })
    .where('id', 'in', [...ids])
    .where('status', '=', 'pending')
    .execute();
}

/** Settles claimed deliveries that were delivered at `at`: one statement for a batch. */
export async function settleDelivered(trx: Trx, ids: readonly number[], at: string): Promise<void> {
  if (ids.length === 0) return;
  await trx
    .updateTable('webhook_deliveries')
    .set((eb) => ({ status: 'succeeded', attempts: eb('attempts', '+', 1), delivered_at: at, claimed_until: null }))
    .where('id', 'in', [...ids])
    .execute();
}

export async function pageOfAttempts(db: Db, endpointId: number, page: PageRequest) {
  const base = db.selectFrom('webhook_attempts as a').innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id').where('a.endpoint_id', '=', endpointId);
  const [counted, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    base
      .select(['a.id', 'a.at', 'a.status_code', 'a.duration_ms', 'a.error', 'a.succeeded', 'd.message_id', 'd.type', 'd.attempts', 'd.status as delivery_status'])
      .orderBy('a.id', 'desc')
      .limit(page.per_page)
      .offset(offsetOf(page))
      .execute(),
  ]);
  return { rows, count: Number(counted.n) };
}

/** Deliveries by status, and how many pending ones are due now (operators: status, metrics). */
export async function deliveryCounts(db: Db, now: string): Promise<{ pending: number; due: number; failed: number; succeeded: number }> {
  const { byStatus, due } = await countByStatus(db, 'webhook_deliveries', now);
  return { pending: byStatus.get('pending') ?? 0, due, failed: byStatus.get('failed') ?? 0, succeeded: byStatus.get('succeeded') ?? 0 };
}

/** Endpoints that are disabled, and enabled ones failing since some time (operators). */
export async function endpointHealth(db: Db) {
  return db
    .selectFrom('webhook_endpoints')
    .select(['id', 'book', 'user_id', 'url', 'disabled', 'disabled_reason', 'failing_since'])
    .where('deleted_at', 'is', null)
    .where((eb) => eb.or([eb('disabled', '=', 1), eb('failing_since', 'is not', null)]))
    .orderBy('id')
    .limit(1000)
    .execute();
}

/** An endpoint's events since `since` (its user's, of its book): what a replay sends again. */
export async function eventsSince(db: Db, userId: number, since: string) {
  return db
    .selectFrom('events')
    .select(['id', 'type', 'object_type', 'object_id', 'data', 'created_at'])
    .where('user_id', '=', userId)
    .where('created_at', '>=', since)
    .orderBy('id')
    .limit(100_000)
    .execute();
}

/** The events since `since` of the donations `appId` made (rules §25): what an app's endpoint heard. */
export async function appEventsSince(db: Db, appId: number, since: string) {
  return db
    .selectFrom('events as e')
    .innerJoin('donations as d', 'd.id', 'e.object_id')
    .select(['e.id', 'e.type', 'e.object_type', 'e.object_id', 'e.data', 'e.created_at'])
    .where('e.object_type', '=', 'donation')
    .where('d.app_id', '=', appId)
    .where('e.created_at', '>=', since)
    .orderBy('e.id')
    .limit(100_000)
    .execute();
}
