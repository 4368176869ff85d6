// Every SQL statement about users, funds, follows and fund causes.
import type { Db, Trx } from '../../db/database.ts';
import type { Selectable } from 'kysely';
import type { Database, FundsTable, UsersTable } from '../../db/schema.ts';
import { prepared } from '../../db/prepared.ts';
import type { Book } from '../../shared/book.ts';
import { offsetOf, type PageRequest } from '../../shared/page.ts';

const USER_COLUMNS = ['id', 'name', 'slug', 'city', 'avatar_url', 'cover_image_url', 'visible', 'onboarding_status', 'status', 'book'] as const;
type UserRow = Pick<Selectable<UsersTable>, (typeof USER_COLUMNS)[number]>;

/** A user as the services see one: `visible` as a boolean (the column is 0 or 1 on both engines). */
export type User = Omit<UserRow, 'visible'> & { visible: boolean };

export type Fund = Pick<Selectable<FundsTable>, 'id' | 'user_id' | 'name' | 'summary'>;

function toUser(row: UserRow): User {
  return { ...row, visible: row.visible === 1 };
}

// The reads of a profile (GET /v1/users/me and the web's pages, on every request) are prepared:
// built and compiled once instead of on every call (db/prepared.ts).
const userByIdQuery = prepared<Database, UserRow, { id: number }>((db, p) => db.selectFrom('users').select(USER_COLUMNS).where('id', '=', p('id')));

export async function findUserById(db: Db | Trx, id: number): Promise<User | undefined> {
  const [row] = await userByIdQuery(db, { id });
  return row === undefined ? undefined : toUser(row);
}

export async function findUserBySlug(db: Db | Trx, slug: string): Promise<User | undefined> {
  const row = await db.selectFrom('users').select(USER_COLUMNS).where('slug', '=', slug.toLowerCase()).executeTakeFirst();
  return row === undefined ? undefined : toUser(row);
}

/** True when a user (other than `exceptUserId`, if given) has `slug`. */
export async function slugTaken(db: Db | Trx, slug: string, exceptUserId?: number): Promise<boolean> {
  let q = db.selectFrom('users').select('id').where('slug', '=', slug);
  if (exceptUserId !== undefined) q = q.where('id', '!=', exceptUserId);
  return (await q.executeTakeFirst()) !== undefined;
}

/**
 * Inserts a user unless its slug is taken (then undefined: a concurrent request may have taken it
 * after the caller looked). A sandbox twin (`sandbox_of` set) is in the test book; everyone else in the live one.
 */
export async function insertUser(
  trx: Trx,
  user: Omit<User, 'id' | 'status' | 'book'> & { created_at: string; sandbox_of?: number },
): Promise<{ id: number; book: Book } | undefined> {
  const book: Book = user.sandbox_of === undefined ? 'live' : 'test';
  const row = await trx
    .insertInto('users')
    .values({ ...user, book, visible: user.visible ? 1 : 0, status: 'active' })
    .onConflict((oc) => oc.column('slug').doNothing())
    .returning('id')
    .executeTakeFirst();
  return row === undefined ? undefined : { id: row.id, book };
}
export async function insertFund(trx: Trx, fund: Omit<Fund, 'id'> & { created_at: string; book: Book }): Promise<number> {
  const row = await trx.insertInto('funds').values(fund).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export async function setFundCauses(trx: Trx, fundId: number, causeIds: readonly number[]): Promise<void> {
  await trx.deleteFrom('fund_causes').where('fund_id', '=', fundId).execute();
  if (causeIds.length > 0)
    await trx
      .insertInto('fund_causes')
      .values(causeIds.map((cause_id) => ({ fund_id: fundId, cause_id })))
      .execute();
}

const currentFundQuery = prepared<Database, Fund, { user_id: number }>((db, p) =>
  db.selectFrom('funds').select(['id', 'user_id', 'name', 'summary']).where('user_id', '=', p('user_id')).orderBy('id').limit(1),
);

export async function currentFund(db: Db | Trx, userId: number): Promise<Fund | undefined> {
  return (await currentFundQuery(db, { user_id: userId }))[0];
}

const fundCausesQuery = prepared<Database, { cause_id: number }, { fund_id: number }>((db, p) =>
  db.selectFrom('fund_causes').select('cause_id').where('fund_id', '=', p('fund_id')).orderBy('cause_id'),
);

export async function fundCauseIds(db: Db, fundId: number): Promise<number[]> {
  return (await fundCausesQuery(db, { fund_id: fundId })).map((r) => r.cause_id);
}

const followsQuery = prepared<Database, { follower_id: number }, { follower: number; followee: number }>((db, p) =>
  db.selectFrom('follows').select('follower_id').where('follower_id', '=', p('follower')).where('followee_id', '=', p('followee')),
);

export async function follows(db: Db, followerId: number, followeeId: number): Promise<boolean> {
  return (await followsQuery(db, { follower: followerId, followee: followeeId })).length > 0;
}

export async function insertFollow(db: Db | Trx, followerId: number, followeeId: number, at: string): Promise<void> {
  await db
    .insertInto('follows')
    .values({ follower_id: followerId, followee_id: followeeId, created_at: at })
    .onConflict((oc) => oc.columns(['follower_id', 'followee_id']).doNothing())
    .execute();
}

export async function findSandboxTwin(db: Db | Trx, userId: number): Promise<number | undefined> {
  const row = await db.selectFrom('users').select('id').where('sandbox_of', '=', userId).executeTakeFirst();
  return row?.id;
}

export async function sandboxOf(db: Db | Trx, userId: number): Promise<number | null | undefined> {
  const row = await db.selectFrom('users').select('sandbox_of').where('id', '=', userId).executeTakeFirst();
  return row?.sandbox_of;
}

export async function setStatus(trx: Trx, userId: number, status: string): Promise<void> {
  await trx.updateTable('users').set({ status }).where('id', '=', userId).execute();
}

export async function updateUser(trx: Trx, userId: number, change: { name: string; slug: string; visible: boolean; avatar_url: string | null }): Promise<void> {
  await trx
    .updateTable('users')
    .set({ ...change, visible: change.visible ? 1 : 0 })
    .where('id', '=', userId)
    .execute();
}

export async function renameFund(trx: Trx, fundId: number, name: string): Promise<void> {
  await trx.updateTable('funds').set({ name }).where('id', '=', fundId).execute();
}

/** A page of the users of a book with their funds, by id, and how many the book has. */
export async function pageOfUsers(db: Db, book: Book, page: PageRequest) {
  const [counted, rows] = await Promise.all([
    db
      .selectFrom('users')
      .where('book', '=', book)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('users as u')
      .innerJoin('funds as f', 'f.user_id', 'u.id')
      .where('u.book', '=', book)
      .select(['u.id', 'u.name', 'u.slug', 'u.city', 'u.visible', 'u.status', 'u.created_at', 'f.id as fund_id', 'f.name as fund_name'])
      .orderBy('u.id')
      .limit(page.per_page)
      .offset(offsetOf(page))
      .execute(),
  ]);
  return { rows, count: Number(counted.n) };
}

/** True once the platform has any user. */
export async function anyUser(db: Db): Promise<boolean> {
  return (await db.selectFrom('users').select('id').limit(1).executeTakeFirst()) !== undefined;
}
