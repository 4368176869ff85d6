// The SQL statements of the log's checkpoints (docs/rules.md §26): the signed checkpoints of each
// book, the cosignatures its witnesses sent for them, and the log key the node made.
import type { Db, Trx } from '../../db/database.ts';
import type { Book } from '../../shared/book.ts';

/** A checkpoint as stored. */
export interface StoredCheckpoint {
  book: Book;
  size: number;
  root_hash: string;
  note: string;
  key: string;
  created_at: string;
  compact_range?: string | null;
}

function checkpointRow(r: Record<string, unknown>): StoredCheckpoint {
  return {
    book: r.book as Book,
    size: Number(r.size),
    root_hash: r.root_hash as string,
    note: r.note as string,
    key: r.key as string,
    created_at: r.created_at as string,
    compact_range: (r.compact_range as string | null | undefined) ?? null,
  };
}

export async function insertCheckpoint(trx: Trx, c: StoredCheckpoint): Promise<void> {
  await trx.insertInto('ledger_checkpoints').values(c).execute();
}

/** The newest checkpoint of `book` (the largest), or of at most `size` entries. */
export async function latestCheckpoint(db: Db, book: Book, atMost?: number): Promise<StoredCheckpoint | undefined> {
  let q = db.selectFrom('ledger_checkpoints').selectAll().where('book', '=', book);
  if (atMost !== undefined) q = q.where('size', '<=', atMost);
  const row = await q.orderBy('size', 'desc').limit(1).executeTakeFirst();
  return row === undefined ? undefined : checkpointRow(row);
}

export async function checkpointOf(db: Db, book: Book, size: number): Promise<StoredCheckpoint | undefined> {
  const row = await db.selectFrom('ledger_checkpoints').selectAll().where('book', '=', book).where('size', '=', size).executeTakeFirst();
  return row === undefined ? undefined : checkpointRow(row);
}

/** A page of a book's checkpoints, newest first, and how many there are. */
export async function checkpointPage(db: Db, book: Book, limit: number, offset: number): Promise<{ rows: StoredCheckpoint[]; count: number }> {
  const [rows, counted] = await Promise.all([
    db.selectFrom('ledger_checkpoints').selectAll().where('book', '=', book).orderBy('size', 'desc').limit(limit).offset(offset).execute(),
    db
      .selectFrom('ledger_checkpoints')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('book', '=', book)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows: rows.map(checkpointRow), count: Number(counted.n) };
}

/** Every checkpoint of `book`, smallest first (for `almoner check`). */
export async function allCheckpoints(db: Db, book: Book): Promise<StoredCheckpoint[]> {
  return (await db.selectFrom('ledger_checkpoints').selectAll().where('book', '=', book).orderBy('size').execute()).map(checkpointRow);
}

/** The cosignature lines of checkpoints, by size. */
export async function cosignaturesOf(db: Db, book: Book, sizes: readonly number[]): Promise<Map<number, Array<{ witness: string; line: string }>>> {
  const out = new Map<number, Array<{ witness: string; line: string }>>();
  if (sizes.length === 0) return out;
  const rows = await db
    .selectFrom('ledger_cosignatures')
    .select(['size', 'witness', 'line'])
    .where('book', '=', book)
    .where('size', 'in', [...sizes])
    .orderBy('witness')
    .execute();
  for (const r of rows) out.set(Number(r.size), [...(out.get(Number(r.size)) ?? []), { witness: r.witness, line: r.line }]);
  return out;
}

/** Keeps a witness's cosignature of a checkpoint; a newer one of the same witness replaces it. */
export async function saveCosignature(db: Db, c: { book: Book; size: number; witness: string; line: string; created_at: string }): Promise<void> {
  await db
    .insertInto('ledger_cosignatures')
    .values(c)
    .onConflict((oc) => oc.columns(['book', 'size', 'witness']).doUpdateSet({ line: c.line, created_at: c.created_at }))
    .execute();
}

/** The log key the node made and signs with (not retired), if any. */
export async function currentMadeKey(db: Db): Promise<{ id: number; name: string; private_key: string } | undefined> {
  const row = await db.selectFrom('ledger_keys').select(['id', 'name', 'private_key']).where('retired_at', 'is', null).orderBy('id', 'desc').limit(1).executeTakeFirst();
  return row === undefined ? undefined : { id: Number(row.id), name: row.name, private_key: row.private_key };
}

/** Every log key the node made, retired ones too (they verify what they signed). */
export async function madeKeys(db: Db): Promise<Array<{ name: string; private_key: string }>> {
  return db.selectFrom('ledger_keys').select(['name', 'private_key']).orderBy('id').execute();
}

export async function insertMadeKey(db: Db, key: { name: string; private_key: string; created_at: string }): Promise<void> {
  await db.insertInto('ledger_keys').values(key).execute();
}
