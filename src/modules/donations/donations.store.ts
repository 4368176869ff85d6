// Every SQL statement about donations.
import { dialectOf } from '../../db/dialect.ts';
import type { Db, Trx } from '../../db/database.ts';
import { sql, type Insertable, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { Database, DonationsTable } from '../../db/schema.ts';
import { prepared } from '../../db/prepared.ts';
import { columnNames, insertRows, runStatements, type Statement } from '../../db/bulk.ts';
import { reserveIds } from '../../db/ids.ts';
import { assert } from '../../shared/assert.ts';
import { offsetOf, type PageRequest } from '../../shared/page.ts';
import type { Book } from '../../shared/book.ts';
import { HIDDEN_FROM_OTHERS, shownToOthers } from './donations.ts';
import { KeptDonationRows, type ListMark } from './donations.rows.ts';

/** A donation as lists and reads show it: its row's shown columns, its fund's name and its owner. */
export type DonationRecord = PageRow & { fund_name: string; owner: Owner };

// A page of a user's donations is read in small statements: the rows, then the user and their
// funds once (not once per row, as a join did); the non-profits come from the node's cards
// (nonprofits/cards.ts). Prepared: they run on every list request.
const PAGE_COLUMNS = [
  'id',
  'user_id',
  'fund_id',
  'non_profit_id',
  'amount_cents',
  'status',
  'note',
  'visibility',
  'scheduled_donation_id',
  'created_at',
  'mailed_at',
  'share',
  'designation',
  'dedication',
  'actor_id',
  'cancelled_at',
  'external_id',
  'metadata',
  'fundraiser_id',
  // Raised by every update (migration 064): what a node keeps a row under (donations.rows.ts).
  'revision',
] as const;

function donationRows(db: Db | Trx) {
  return db.selectFrom('donations').select(PAGE_COLUMNS);
}

export type PageRow = Pick<Selectable<DonationsTable>, (typeof PAGE_COLUMNS)[number]>;

const userQuery = prepared<Database, { name: string; city: string; avatar_url: string | null; slug: string }, { id: number }>((db, p) =>
  db.selectFrom('users').select(['name', 'city', 'avatar_url', 'slug']).where('id', '=', p('id')),
);

const fundNameQuery = prepared<Database, { name: string }, { id: number }>((db, p) => db.selectFrom('funds').select('name').where('id', '=', p('id')));

/** The user a donation belongs to, as lists show them. */
export type Owner = Awaited<ReturnType<typeof userQuery>>[number];

/**
 * A user with the name of each of their funds, what a list of their donations
 * shows beside every row, and how many donations they have (the list's
 * meta.count, kept by insertDonation): one statement.
 */
const ownerQuery = prepared<Database, Owner & { fund_id: number; fund_name: string; total: number | null; public_total: number | null; revision: number | null }, { id: number }>(
  (db, p) =>
    db
      .selectFrom('users as u')
      .innerJoin('funds as f', 'f.user_id', 'u.id')
      .leftJoin('donation_counts as c', 'c.user_id', 'u.id')
      .select(['u.name', 'u.city', 'u.avatar_url', 'u.slug', 'f.id as fund_id', 'f.name as fund_name', 'c.total', 'c.public_total', 'c.revision'])
      .where('u.id', '=', p('id')),
);

async function withOwners(
  db: Db | Trx,
  rows: ReadonlyArray<Readonly<PageRow>>,
  known?: Array<Owner & { fund_id: number; fund_name: string }>,
  knownUserId?: number,
): Promise<DonationRecord[]> {
  const users = new Map<number, Owner>();
  const funds = new Map<number, string>();
  const first = known?.[0];
  if (first !== undefined && knownUserId !== undefined) {
    users.set(knownUserId, first);
    for (const k of known ?? []) funds.set(k.fund_id, k.fund_name);
  }
  for (const row of rows) {
    if (!users.has(row.user_id)) {
      const [user] = await userQuery(db as Db, { id: row.user_id });
      assert(user !== undefined, 'a donation has a user');
      users.set(row.user_id, user);
    }
    if (!funds.has(row.fund_id)) {
      const [fund] = await fundNameQuery(db as Db, { id: row.fund_id });
      assert(fund !== undefined, 'a donation has a fund');
      funds.set(row.fund_id, fund.name);
    }
  }
  return rows.map((row) => {
    const user = users.get(row.user_id);
    assert(user !== undefined, 'looked up above');
    return { ...row, fund_name: funds.get(row.fund_id) ?? '', owner: user };
  });
}

const byIdQuery = prepared<Database, PageRow, { id: number; book: Book }>((db, p) => donationRows(db).where('id', '=', p('id')).where('book', '=', p('book')));

/** Donations of `book` by id, with their owners (a notification batch); missing ids are left out. */
export async function findDonations(db: Db, book: Book, ids: readonly number[]): Promise<DonationRecord[]> {
  if (ids.length === 0) return [];
  const rows = await donationRows(db)
    .where('id', 'in', [...ids])
    .where('book', '=', book)
    .execute();
  return withOwners(db, rows as PageRow[]);
}

/** The app that made each of these donations, where one did (rules §25): by id. */
export async function appsOfDonations(db: Db, ids: readonly number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('donations')
    .select(['id', 'app_id'])
    .where('id', 'in', [...ids])
    .where('app_id', 'is not', null)
    .execute();
  return new Map(rows.map((r) => [Number(r.id), Number(r.app_id)]));
}

/** A donation of `book` (rules §14: the other book's are not found). */
export async function findDonation(db: Db | Trx, book: Book, id: number): Promise<DonationRecord | undefined> {
  const [row] = await byIdQuery(db, { id, book });
  return row === undefined ? undefined : (await withOwners(db, [row]))[0];
}

/** Others see a user's public donations that happened (rules §8): never a cancelled or rejected one. */
function seenByOthers<O>(q: SelectQueryBuilder<Database, 'donations', O>): SelectQueryBuilder<Database, 'donations', O> {
  return q.where('visibility', '=', 'public').where('status', 'not in', [...HIDDEN_FROM_OTHERS]);
}

// A page's ids and revisions, in the list's order: what it shows is then the rows a node keeps
// at those revisions, and a read of the others (donations.rows.ts, ADR 33). Each row carries the
// mark of the user's list (count and revision, migration 069) as the same statement saw it: the
// keys are kept under a mark no newer than they are.
function pageKeys(publicOnly: boolean) {
  return prepared<Database, { id: number; revision: number; mark_total: number | null; mark_revision: number | null }, { user_id: number; limit: number; offset: number }>(
    (db, p) => {
      const counts = () => db.selectFrom('donation_counts').where('user_id', '=', p('user_id'));
      const mine = db
        .selectFrom('donations')
        .select(['id', 'revision'])
        .select([counts().select('total').as('mark_total'), counts().select('revision').as('mark_revision')])
        .where('user_id', '=', p('user_id'));
      return (publicOnly ? seenByOthers(mine) : mine).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(p('limit')).offset(p('offset'));
    },
  );
}

const pageKeysQuery = pageKeys(false);
const publicPageKeysQuery = pageKeys(true);

/** The mark of a user's list in a row that carries one (the owner's, a page key's), if the user has a count. */
function markOf(total: number | null | undefined, revision: number | null | undefined): ListMark | undefined {
  return total === null || total === undefined || revision === null || revision === undefined ? undefined : { total, revision };
}

/**
 * A page's ids and revisions: those `kept` under the mark the owner's row shows now, else read.
 * With keys kept for the page, the owner's row is read first and the keys only if its mark moved;
 * without, both at once (on PostgreSQL one round trip's wait instead of two).
 */
async function keysAndOwner(db: Db, values: { user_id: number; limit: number; offset: number }, publicOnly: boolean, kept: KeptDonationRows<PageRow>, since: number) {
  const read = publicOnly ? publicPageKeysQuery : pageKeysQuery;
  const key = `${values.user_id} ${publicOnly ? 'public' : 'own'} ${values.limit} ${values.offset}`;
  const held = kept.keys(key);
  let keys: Awaited<ReturnType<typeof read>>;
  let owner: Awaited<ReturnType<typeof ownerQuery>>;
  if (held !== undefined) {
    owner = await ownerQuery(db, { id: values.user_id });
    const now = markOf(owner[0]?.total, owner[0]?.revision);
    if (now !== undefined && now.total === held.mark.total && now.revision === held.mark.revision) return { keys: held.keys, owner };
    keys = await read(db, values);
  } else {
    [keys, owner] = await Promise.all([read(db, values), ownerQuery(db, { id: values.user_id })]);
  }
  const mark = markOf(keys[0]?.mark_total, keys[0]?.mark_revision);
  if (mark !== undefined)
    kept.keepKeys(
      key,
      mark,
      keys.map((k) => ({ id: k.id, revision: k.revision })),
      since,
    );
  return { keys, owner };
}

/**
 * A user's donations, newest first; `publicOnly` for other viewers. The page's ids and revisions
 * are read first, or known (keysAndOwner); a row `kept` at its revision is not read again, the
 * others are read (with the same conditions, so a row that left the list between the two reads is
 * left out) and kept.
 */
export async function listByUser(
  db: Db,
  userId: number,
  publicOnly: boolean,
  page: PageRequest,
  kept: KeptDonationRows<PageRow> = new KeptDonationRows(0),
): Promise<{ rows: DonationRecord[]; count: number }> {
  const values = { user_id: userId, limit: page.per_page, offset: offsetOf(page) };
  // Before any read: what is read is kept only if no write was undone meanwhile (Deps.undone).
  const since = kept.since();
  const { keys, owner } = await keysAndOwner(db, values, publicOnly, kept, since);
  const rows: Array<Readonly<PageRow> | undefined> = keys.map((k) => kept.get(k.id, k.revision)?.row);
  const missing = keys.filter((_, i) => rows[i] === undefined).map((k) => k.id);
  if (missing.length > 0) {
    const read = donationRows(db).where('user_id', '=', userId).where('id', 'in', missing);
    const found = new Map((await (publicOnly ? seenByOthers(read) : read).execute()).map((r) => [r.id, kept.keep(r as PageRow, since).row]));
    for (let i = 0; i < keys.length; i += 1) rows[i] ??= found.get((keys[i] as { id: number }).id);
  }
  const counted = owner[0];
  const count = counted === undefined ? 0 : ((publicOnly ? counted.public_total : counted.total) ?? 0);
  return {
    rows: await withOwners(
      db,
      rows.filter((r) => r !== undefined),
      owner,
      userId,
    ),
    count,
  };
}

/** A donation to insert: its row's columns a use case decides (the store sets updated_at). */
export type NewDonationRow = Pick<
  Insertable<DonationsTable>,
  'book' | 'user_id' | 'fund_id' | 'non_profit_id' | 'amount_cents' | 'status' | 'note' | 'private_memo' | 'visibility' | 'scheduled_donation_id' | 'created_at'
> & {
  /** The app connection whose token made it (ADR 16). */
  app_connection_id: number | null;
  /** The date of a recurring donation's occurrence: unique with scheduled_donation_id. */
  scheduled_for?: string | null;
  /** What the charity learns (rules §17); the defaults when not given: name, no designation, no dedication. */
  share?: string;
  designation?: string | null;
  dedication?: string | null;
  /** The member who made it (rules §20), and a request's lapse. */
  actor_id?: number | null;
  request_expires_at?: string | null;
  /** Partner fields (rules §21): the owner's id for it, its metadata as JSON text; the fundraiser it is given to (§22). */
  external_id?: string | null;
  metadata?: string | null;
  fundraiser_id?: number | null;
  match_id?: number | null;
  matched_donation_id?: number | null;
  /** A checkout provider's id for a grant made through it (rules §24). */
  tracking_id?: string | null;
  /** The app whose token or donate link made it (rules §25). */
  app_id?: number | null;
};

/** Inserts one donation (a gift's claim) and counts it: the statements of a batch, for one. */
export async function insertDonation(trx: Trx, donation: NewDonationRow): Promise<number> {
  const [id] = await reserveIds(trx, 'donations', 1);
  assert(id !== undefined, 'an id was reserved');
  await runStatements(trx, donationStatements([{ ...donation, id }]));
  return id;
}

/** The columns a new donation's insert writes, with their types in the table (bulk.ts insertRows). */
const DONATION_TYPES =
  'id bigint, book text, user_id bigint, fund_id bigint, non_profit_id bigint, amount_cents bigint, status text, note text, private_memo text, visibility text, scheduled_donation_id bigint, created_at text, updated_at text, scheduled_for text, app_connection_id bigint, share text, designation text, dedication text, actor_id bigint, request_expires_at text, external_id text, metadata text, fundraiser_id bigint, match_id bigint, matched_donation_id bigint, tracking_id text, app_id bigint';
const DONATION_COLUMNS = columnNames(DONATION_TYPES);

/** A user's counts are added to what they were. */
const COUNTS_ADD = 'on conflict (user_id) do update set total = donation_counts.total + excluded.total, public_total = donation_counts.public_total + excluded.public_total';

/** The statements that insert donations with the ids reserved for them (db/ids.ts), and count them (the list's meta.count; `almoner check` recounts it). */
export function donationStatements(donations: ReadonlyArray<NewDonationRow & { id: number }>): Statement[] {
  const perUser = new Map<number, { total: number; public_total: number }>();
  for (const d of donations) {
    const c = perUser.get(d.user_id) ?? { total: 0, public_total: 0 };
    c.total += 1;
    if (shownToOthers(d)) c.public_total += 1;
    perUser.set(d.user_id, c);
  }
  return [
    ...insertRows(
      'donations',
      DONATION_TYPES,
      // The row's own values, but what a new donation has by default: updated when made, named to the charity.
      donations.map((d) => DONATION_COLUMNS.map((c) => (c === 'updated_at' ? d.created_at : c === 'share' ? (d.share ?? 'name') : ((d as Record<string, unknown>)[c] ?? null)))),
    ),
    // Every user's count in one statement (each user once, so one row per key).
    ...insertRows(
      'donation_counts',
      'user_id bigint, total bigint, public_total bigint',
      [...perUser].map(([userId, c]) => [userId, c.total, c.public_total]),
      COUNTS_ADD,
    ),
  ];
}

/** The fund of each of the donations `ids` of `book` that exists (to lock their funds in order). */
export async function fundsOfDonations(db: Db | Trx, book: Book, ids: readonly number[]): Promise<Map<number, number>> {
  const found = new Map<number, number>();
  for (let i = 0; i < ids.length; i += 1000) {
    const rows = await db
      .selectFrom('donations')
      .select(['id', 'fund_id'])
      .where('book', '=', book)
      .where('id', 'in', ids.slice(i, i + 1000))
      .execute();
    for (const r of rows) found.set(r.id, r.fund_id);
  }
  return found;
}

/** Reads a donation of `book` for a state change; locks the row on PostgreSQL. */
export async function lockDonation(trx: Trx, book: Book, id: number, lock = true) {
  const q = trx.selectFrom('donations').select(['id', 'user_id', 'fund_id', 'amount_cents', 'status', 'cancelled_at', 'actor_id']).where('id', '=', id).where('book', '=', book);
  return (lock ? dialectOf(trx).lockRows(q) : q).executeTakeFirst();
}

/** Moves a donation from `from` to `to`; false when it was no longer in `from`. */
export type TransitionFields = Partial<
  Record<'cancelled_at' | 'mailed_at' | 'approved_at' | 'rejected_at' | 'completed_at' | 'voided_at' | 'rejection_reason' | 'decided_at', string | null>
> & {
  decided_by?: number;
};

export async function transition(trx: Trx, id: number, from: string, to: string, at: string, extra: TransitionFields = {}): Promise<boolean> {
  const result = await trx
    .updateTable('donations')
    .set({ status: to, updated_at: at, ...extra })
    .where('id', '=', id)
    .where('status', '=', from)
    .executeTakeFirst();
  const moved = Number(result.numUpdatedRows) === 1;
  // A public donation that did not happen leaves what others see (and count); an approved request joins it.
  const step = HIDDEN_FROM_OTHERS.includes(to) === HIDDEN_FROM_OTHERS.includes(from) ? 0 : HIDDEN_FROM_OTHERS.includes(to) ? -1 : 1;
  if (moved && step !== 0) {
    await trx
      .updateTable('donation_counts')
      .set((eb) => ({ public_total: eb('public_total', '+', step) }))
      .where('user_id', '=', (eb) => eb.selectFrom('donations').select('user_id').where('id', '=', id).where('visibility', '=', 'public'))
      .execute();
  }
  return moved;
}

/** A fund's waiting donations, oldest first: the query itself, so that a test can ask each engine how it reads it. */
export function waitingForFundQuery(db: Db | Trx, fundId: number) {
  // The status as a literal: both engines then read the partial index of waiting donations (migration 024).
  return db.selectFrom('donations').select(['id', 'user_id', 'amount_cents']).where('fund_id', '=', fundId).where('status', '=', sql.lit('waiting_for_funds')).orderBy('id');
}

export async function waitingForFund(trx: Trx, fundId: number) {
  return waitingForFundQuery(trx, fundId).execute();
}

/** The payment a donation is in (rules §17), if any. */
export async function paymentOf(trx: Trx, donationId: number): Promise<number | undefined> {
  const row = await trx.selectFrom('payment_grants').select('payment_id').where('donation_id', '=', donationId).executeTakeFirst();
  return row === undefined ? undefined : Number(row.payment_id);
}

/** Ids of donations of `book` in a status, oldest first. */
export async function idsInStatus(db: Db, book: Book, status: string, limit: number): Promise<number[]> {
  const rows = await db.selectFrom('donations').select('id').where('book', '=', book).where('status', '=', status).orderBy('id').limit(limit).execute();
  return rows.map((r) => r.id);
}
