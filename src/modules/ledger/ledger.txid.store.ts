// PostgreSQL's waiting for the journal's log (docs/rules.md §26, ADR 28, migration 063): every
// journal row carries the id of the transaction that wrote it (`txid`), and an entry waits while
// it is above its book's last placed entry in (txid, id) order. The sequencer takes those whose
// transaction is older than every one still running; the statements here find them, find what is
// held back, and renumber a journal restored into a cluster whose transaction ids are behind.
import { CompiledQuery, sql } from 'kysely';
import { dialectOf } from '../../db/dialect.ts';
import type { Db, Trx } from '../../db/database.ts';
import { prepareText } from '../../db/prepared.ts';
import type { Book } from '../../shared/book.ts';
import { WAITED_BEFORE_TXID } from '../../db/migrations/063_log_by_transaction.ts';

/**
 * PostgreSQL: where the book's log stands in the journal's order, the (txid, id) of its last
 * placed entry; ('0', 0) while that entry has no txid (written before migration 063) or none is
 * placed. Every entry with a txid above it waits; one at or below it without a place was missed,
 * which only a write around the journal's columns can do (`unloggedEntries`). `moved`: the
 * cursor's txid is not below the oldest transaction running now, which in one database's history
 * never happens (it was below the oldest running when it was placed, and that only rises): the
 * database was restored into a cluster whose transaction ids are behind (pg_restore into a new
 * one), and its new entries would be written below the cursor (`rebaseMovedLog`).
 */
export async function logCursor(db: Db, book: Book): Promise<{ txid: string; id: number; moved: boolean }> {
  const { rows } = await sql<{ txid: string | null; id: string; moved: boolean | null }>`select j.txid::text as txid, j.id,
      pg_snapshot_xmin(pg_current_snapshot()) <= j.txid as moved
    from ledger_places p join journal_entries j on j.id = p.entry_id where p.book = ${book} order by p.leaf desc limit 1`.execute(db);
  const last = rows[0];
  return last === undefined || last.txid === null ? { txid: '0', id: 0, moved: false } : { txid: last.txid, id: Number(last.id), moved: last.moved === true };
}

/**
 * PostgreSQL, under the log's lock: when the book's cursor is ahead of the cluster's transaction
 * ids (`logCursor`'s `moved`), the journal's txids are made those of a database that never moved,
 * as migration 063 left them: none on the placed entries, the first normal id (3) on those waiting,
 * which keep their turn in id order before any entry written from now on. True when it did so.
 * One statement for each, over the book's entries with a txid: once, after such a restore.
 */
export async function rebaseMovedLog(trx: Trx, book: Book): Promise<boolean> {
  if (dialectOf(trx).engine !== 'postgres' || !(await logCursor(trx, book)).moved) return false;
  await sql`update journal_entries set txid = null where book = ${book} and txid is not null
    and exists (select 1 from ledger_places p where p.entry_id = journal_entries.id)`.execute(trx);
  await sql`update journal_entries set txid = ${WAITED_BEFORE_TXID}::xid8 where book = ${book} and txid is not null`.execute(trx);
  return true;
}

/**
 * PostgreSQL: the entries of `book` above `cursor` in (txid, id) order, at most `limit`, by the
 * journal's txid index (the cursor is read first and bound: joined to the read of the last
 * place, PostgreSQL did not bound the index with it, and read the whole journal). `takeable`: only
 * those whose transaction is older than every transaction still running (the snapshot's xmin),
 * so no entry still to commit can come before them.
 */
export async function aboveCursor(db: Db, book: Book, cursor: { txid: string; id: number }, limit: number, takeable: boolean) {
  const { rows } = await db.executeQuery<{ id: string; entry_hash: string | null }>(aboveCursorQuery(book, cursor, limit, takeable));
  return rows.map((r) => ({ entry_id: Number(r.id), entry_hash: r.entry_hash }));
}

/** aboveCursor's statement (prepared: the same text for any cursor). */
export function aboveCursorQuery(book: Book, cursor: { txid: string; id: number }, limit: number, takeable = true): CompiledQuery {
  const text = `select id, entry_hash from journal_entries where book = $1 and txid is not null and (txid, id) > ($2::xid8, $3::bigint)${
    takeable ? ' and txid < pg_snapshot_xmin(pg_current_snapshot())' : ''
  } order by txid, id limit $4`;
  prepareText(text);
  return CompiledQuery.raw(text, [book, cursor.txid, cursor.id, limit]);
}

/**
 * PostgreSQL: the id the next transaction of the cluster will get: every entry committed before
 * the call has a txid below it. SQLite: undefined (its waiting is never held back).
 */
export async function nextTxid(db: Db): Promise<string | undefined> {
  if (dialectOf(db).engine !== 'postgres') return undefined;
  return (await sql<{ next: string }>`select pg_snapshot_xmax(pg_current_snapshot())::text as next`.execute(db)).rows[0]?.next;
}

/**
 * PostgreSQL: whether an entry of `book` committed by a transaction below `before` (a `nextTxid`)
 * waits above the log's last place: held back by an older transaction still running (in any
 * database of the cluster: transaction ids are the cluster's), or committed since the last take.
 */
export async function anyHeldBack(db: Db, book: Book, before: string): Promise<boolean> {
  const cursor = await logCursor(db, book);
  if (cursor.moved) return true;
  const { rows } = await sql`select 1 from journal_entries where book = ${book} and txid is not null
    and (txid, id) > (${cursor.txid}::xid8, ${cursor.id}::bigint) and txid < ${before}::xid8 limit 1`.execute(db);
  return rows.length > 0;
}
