// Every SQL statement of the journal's log (docs/rules.md §26): its entries' places and chain
// hashes (ledger_places) and the entries waiting for one; its checkpoints' are in
// ledger.checkpoint.store.ts. A place is a row of its own, never a change to the entry's (migration
// 060): the journal's rows are written once. What waits differs by engine: on SQLite, an entry
// named in ledger_waiting (rare: its writer places what it writes); on PostgreSQL, an entry above
// the book's last placed one in the order of the transactions that wrote them (`txid`, migration
// 063), taken once its transaction is older than every one still running.
import { CompiledQuery, sql } from 'kysely';
import { dialectOf } from '../../db/dialect.ts';
import { bulkInsert, jsonRowsFrom } from '../../db/bulk.ts';
import type { Db, Trx } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { prepared, prepareText } from '../../db/prepared.ts';
import type { Book } from '../../shared/book.ts';
import type { EncodedEntry } from './ledger.encoding.ts';
import { aboveCursor, logCursor } from './ledger.txid.store.ts';

/** Only one transaction sequences a book's log at a time (on every node). */
export async function lockLog(trx: Trx, book: Book): Promise<void> {
  await dialectOf(trx).lockKeys(trx, [`ledger log ${book}`]);
}

/**
 * PostgreSQL: `trx` commits without waiting for its WAL to reach the disk (synchronous_commit off
 * for it alone), the sequencer's (docs/rules.md §26). A commit that waits holds the WAL's flush
 * for every writer committing beside it: with the job's transactions so, the load over 100 funds
 * answered a fifth fewer requests (docs/performance-history.md, 2026-12-01, morning). The WAL
 * is written in order, so any later commit that waits, a checkpoint's included, makes this one
 * durable first: nothing signed ever holds a place a crash could take back. SQLite: nothing (its
 * writer places as it writes, in the group's commit).
 */
export async function commitWithoutWaiting(trx: Trx): Promise<void> {
  if (dialectOf(trx).engine === 'postgres') await sql`set local synchronous_commit = off`.execute(trx);
}

/**
 * Resolves once every commit made before the call is durable: on PostgreSQL when the WAL is
 * flushed up to where it was written at the call (the WAL writer flushes a commit that did not
 * wait within a few hundred ms, a commit that waits at once); on SQLite at once (a commit there
 * is answered only when durable). Before the log is written out (`almoner ledger export`).
 */
export async function durableSoFar(db: Db, pollMs = 10, timeoutMs = 10_000): Promise<void> {
  if (dialectOf(db).engine !== 'postgres') return;
  const at = (await sql<{ lsn: string }>`select pg_current_wal_insert_lsn()::text as lsn`.execute(db)).rows[0]?.lsn;
  for (const started = performance.now(); ;) {
    const { rows } = await sql<{ durable: boolean }>`select pg_current_wal_flush_lsn() >= ${at}::pg_lsn as durable`.execute(db);
    if (rows[0]?.durable === true) return;
    if (performance.now() - started > timeoutMs) throw new Error(`the WAL was not flushed to ${at} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/**
 * PostgreSQL's table of places vacuumed and its statistics made again, after many entries were
 * placed at once (a journal from before 054 taken up by `almoner ledger checkpoint`): statistics
 * gathered before still say the log is small. Autovacuum does it in time where it runs. SQLite's
 * writer places its own entries: nothing to do there.
 */
export async function vacuumLog(db: Db): Promise<void> {
  if (dialectOf(db).engine === 'postgres') await sql`vacuum (analyze) ledger_places`.execute(db);
}

/** The ids and hashes of the entries of `book` waiting for their place, in the order the log takes them, at most `limit`. */
async function waitingOf(db: Db, book: Book, limit: number, fromId: number, takeable = true): Promise<Array<{ entry_id: number; entry_hash: string | null }>> {
  if (dialectOf(db).engine === 'postgres') {
    const cursor = await logCursor(db, book);
    // A moved log's waiting are known only once the sequencer rebased it (rebaseMovedLog).
    return cursor.moved ? [] : aboveCursor(db, book, cursor, limit, takeable);
  }
  return (await unsequencedQuery(db, book, limit, fromId).execute()).map((r) => ({ entry_id: Number(r.entry_id), entry_hash: r.entry_hash }));
}

// Compiled once (db/prepared.ts): SQLite's writer reads it in every write transaction that places entries.
const lastPlaceQuery = prepared<Database, { log_seq: number; chain_hash: string }, { book: Book }>((db, p) =>
  db.selectFrom('ledger_places').select(['leaf as log_seq', 'chain_hash']).where('book', '=', p('book')).orderBy('leaf', 'desc').limit(1),
);

/** The log's last entry: its leaf index and chain hash; undefined for an empty log. */
export async function lastSequenced(db: Db, book: Book): Promise<{ log_seq: number; chain_hash: string } | undefined> {
  const [row] = await lastPlaceQuery(db, { book });
  return row === undefined ? undefined : { log_seq: Number(row.log_seq), chain_hash: row.chain_hash };
}

/** An entry as stored, with its postings, its stored hash and, once sequenced, its place. */
export interface StoredEntry extends EncodedEntry {
  entry_hash: string | null;
  log_seq: number | null;
  chain_hash: string | null;
}

type EntryRow = Omit<StoredEntry, 'postings'>;

const ENTRY_COLUMNS = [
  'j.id',
  'j.book',
  'j.created_at',
  'j.memo',
  'j.donation_id',
  'j.gift_id',
  'j.contribution_id',
  'j.audit_id',
  'j.match_id',
  'j.entry_hash',
  'p.leaf as log_seq',
  'p.chain_hash',
] as const;

/** The journal's entries with their places (none for an entry the log has yet to take). */
function entriesWithPlaces(db: Db) {
  return db.selectFrom('journal_entries as j').leftJoin('ledger_places as p', 'p.entry_id', 'j.id');
}

function numberOrNull(v: unknown): number | null {
  return v === null || v === undefined ? null : Number(v);
}

/** The entries with their postings, in the order given. */
async function withPostings(db: Db, rows: ReadonlyArray<Record<string, unknown>>): Promise<StoredEntry[]> {
  const entries: EntryRow[] = rows.map((r) => ({
    id: Number(r.id),
    book: r.book as Book,
    created_at: r.created_at as string,
    memo: r.memo as string,
    donation_id: numberOrNull(r.donation_id),
    gift_id: numberOrNull(r.gift_id),
    contribution_id: numberOrNull(r.contribution_id),
    audit_id: numberOrNull(r.audit_id),
    match_id: numberOrNull(r.match_id),
    entry_hash: (r.entry_hash as string | null) ?? null,
    log_seq: numberOrNull(r.log_seq),
    chain_hash: (r.chain_hash as string | null) ?? null,
  }));
  if (entries.length === 0) return [];
  const postings = new Map<number, Array<{ account_id: number; amount_cents: number }>>();
  const ids = entries.map((e) => e.id);
  for (let i = 0; i < ids.length; i += 500) {
    // Amounts as text: a corrupt one beyond the exact range reads as an inexact number (reported by
    // check), where the driver would refuse the row.
    const rows = await db
      .selectFrom('postings')
      .select(['entry_id', 'account_id', sql<string>`cast(amount_cents as text)`.as('amount_text')])
      .where('entry_id', 'in', ids.slice(i, i + 500))
      .execute();
    for (const p of rows) {
      const list = postings.get(Number(p.entry_id)) ?? [];
      list.push({ account_id: Number(p.account_id), amount_cents: Number(p.amount_text) });
      postings.set(Number(p.entry_id), list);
    }
  }
  return entries.map((e) => ({ ...e, postings: postings.get(e.id) ?? [] }));
}

/** The entries of `book` the log has yet to take (on PostgreSQL those held back by an older transaction too), oldest id first, at most `limit`. */
export async function unsequencedEntries(db: Db, book: Book, limit: number): Promise<StoredEntry[]> {
  const ids = (await waitingOf(db, book, limit, 0, false)).map((r) => r.entry_id).sort((a, b) => a - b);
  return withPostings(db, await entriesById(db, ids));
}

/**
 * The ids and stored hashes of the entries of `book` the log can take now, in the order it takes
 * them, at most `limit`; with their content (to hash) only for those written before their hash was
 * (054). PostgreSQL: in (txid, id) order above the book's last place, of transactions older than
 * any still running (`aboveCursor`). SQLite: oldest id first from `fromId` (the sequencer's floor),
 * with the hash the entry waits with (copied by the journal's trigger, 061), one read of the
 * waiting by its key. Only an entry without a hash is read from the journal, by id (joined in one
 * statement, PostgreSQL merged a backlog of waiting entries with the whole journal read from its
 * first id, 0.3 s a thousand at two million entries); such an id with no entry is left out. An
 * entry's waiting hash is not checked here: a hash that is not its entry's breaks the chain, which
 * `almoner check` recomputes from the journal's own hashes.
 */
export async function unsequencedHashes(db: Db, book: Book, limit: number, fromId = 0): Promise<Array<{ id: number; entry_hash: string | null; entry?: StoredEntry }>> {
  const waiting = (await waitingOf(db, book, limit, fromId)).map((r) => ({ id: r.entry_id, entry_hash: r.entry_hash }));
  const without = waiting.filter((w) => w.entry_hash === null).map((w) => w.id);
  if (without.length === 0) return waiting;
  const hashes = new Map<number, string | null>();
  for (let i = 0; i < without.length; i += 500) {
    const rows = await db
      .selectFrom('journal_entries')
      .select(['id', 'entry_hash'])
      .where('id', 'in', without.slice(i, i + 500))
      .execute();
    for (const r of rows) hashes.set(Number(r.id), r.entry_hash);
  }
  const content = new Map<number, StoredEntry>();
  const unhashed = without.filter((id) => hashes.get(id) === null);
  for (const e of await withPostings(db, await entriesById(db, unhashed))) content.set(e.id, e);
  return waiting
    .filter((w) => w.entry_hash !== null || hashes.has(w.id))
    .map(({ id, entry_hash: waited }) => {
      const entry_hash = waited ?? (hashes.get(id) as string | null);
      return { id, entry_hash, ...(entry_hash === null ? { entry: content.get(id) as StoredEntry } : {}) };
    });
}

/**
 * Entries of `book` neither in its log nor waiting for their place (at most `limit`, oldest
 * first): none, unless written around the journal's trigger (SQLite) or its txid (PostgreSQL: an
 * entry without one, or at or below the book's last place, which the log has passed).
 */
export async function unloggedEntries(db: Db, book: Book, limit = 10): Promise<number[]> {
  if (dialectOf(db).engine === 'postgres') {
    const cursor = await logCursor(db, book);
    // A moved log not yet rebased (logCursor): every entry with a txid and no place still waits for it.
    const passed = cursor.moved ? sql`false` : sql`(j.txid, j.id) <= (${cursor.txid}::xid8, ${cursor.id}::bigint)`;
    const { rows } = await sql<{ id: string }>`select j.id from journal_entries j where j.book = ${book}
      and not exists (select 1 from ledger_places p where p.entry_id = j.id)
      and (j.txid is null or ${passed}) order by j.id limit ${limit}`.execute(db);
    return rows.map((r) => Number(r.id));
  }
  const rows = await db
    .selectFrom('journal_entries as j')
    .select('j.id')
    .where('j.book', '=', book)
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('ledger_places as p').select('p.entry_id').whereRef('p.entry_id', '=', 'j.id'))))
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('ledger_waiting as w').select('w.entry_id').whereRef('w.book', '=', 'j.book').whereRef('w.entry_id', '=', 'j.id'))),
    )
    .orderBy('j.id')
    .limit(limit)
    .execute();
  return rows.map((r) => Number(r.id));
}

/** The entries of `ids`, in id order, with their places, read 500 at a time. */
async function entriesById(db: Db, ids: readonly number[]): Promise<Array<Record<string, unknown>>> {
  const rows: Array<Record<string, unknown>> = [];
  for (let i = 0; i < ids.length; i += 500)
    rows.push(
      ...(await entriesWithPlaces(db)
        .select(ENTRY_COLUMNS)
        .where('j.id', 'in', ids.slice(i, i + 500))
        .orderBy('j.id')
        .execute()),
    );
  return rows;
}

/** Whether any entry of `book` waits for its place and can take it now (from id `fromId` on SQLite): one probe of an index. */
export async function anyWaiting(db: Db, book: Book, fromId = 0): Promise<boolean> {
  if (dialectOf(db).engine === 'postgres') {
    const cursor = await logCursor(db, book);
    // A moved log: the sequencer's transaction rebases it (rebaseMovedLog), then takes what waits.
    return cursor.moved || (await aboveCursor(db, book, cursor, 1, true)).length > 0;
  }
  return (await waitingOf(db, book, 1, fromId)).length > 0;
}

/** SQLite: unsequencedHashes's read of the waiting entries' ids, by the key of the waiting. */
export function unsequencedQuery(db: Db, book: Book, limit: number, fromId = 0) {
  const q = db.selectFrom('ledger_waiting').select(['entry_id', 'entry_hash']).where('book', '=', book);
  return (fromId > 0 ? q.where('entry_id', '>=', fromId) : q).orderBy('entry_id').limit(limit);
}

/**
 * Gives entries of `book` their places in the log and chain hashes, 1,000 an insert, and (SQLite)
 * takes them from the waiting (each entry still waiting); `entry_hash` is written where given (an
 * entry from before 054, hashed now), else the entry's row is left as it was written. An entry
 * placed already fails the chunk (the places' key is the entry).
 */
export async function setPlaces(trx: Trx, book: Book, places: ReadonlyArray<{ id: number; log_seq: number; chain_hash: string; entry_hash: string | null }>): Promise<void> {
  const dialect = dialectOf(trx);
  for (let i = 0; i < places.length; i += 1000) {
    const chunk = places.slice(i, i + 1000);
    if (dialect.engine === 'postgres') {
      await placeChunk(trx, book, chunk);
      continue;
    }
    const taken = await trx
      .deleteFrom('ledger_waiting')
      .where('book', '=', book)
      .where(
        'entry_id',
        'in',
        chunk.map((p) => p.id),
      )
      .executeTakeFirst();
    if (Number(taken.numDeletedRows) !== chunk.length) throw new Error('journal entries were taken by the log already');
    await bulkInsert(
      trx,
      'ledger_places',
      ['book', 'leaf', 'entry_id', 'chain_hash'],
      chunk.map((p) => [book, p.log_seq, p.id, p.chain_hash]),
    );
    const hashed = chunk.filter((p) => p.entry_hash !== null).map((p) => [p.id, p.entry_hash]);
    if (hashed.length > 0) {
      const hashParams: unknown[] = [];
      const text = `update journal_entries set entry_hash = v.hash from ${jsonRowsFrom(dialect, hashParams, 'eid bigint, hash text', hashed, 'v')} where journal_entries.id = v.eid`;
      await trx.executeQuery(CompiledQuery.raw(text, hashParams));
    }
  }
}

/**
 * PostgreSQL: setPlaces's chunk in one statement of one JSON value (the same SQL for any number of
 * entries, prepared): the places inserted, each hash set where given. The entries are named by a
 * join, not a list of bound ids, which PostgreSQL parsed and planned anew for every chunk.
 */
async function placeChunk(trx: Trx, book: Book, chunk: ReadonlyArray<{ id: number; log_seq: number; chain_hash: string; entry_hash: string | null }>): Promise<void> {
  const params: unknown[] = [book];
  const values = jsonRowsFrom(
    dialectOf(trx),
    params,
    'id bigint, leaf bigint, chain text, hash text',
    chunk.map((p) => [p.id, p.log_seq, p.chain_hash, p.entry_hash]),
    'v',
  );
  const text = `with v as (select * from ${values}),
      placed as (insert into ledger_places (book, leaf, entry_id, chain_hash) select $1, v.leaf, v.id, v.chain from v returning entry_id),
      hashed as (update journal_entries j set entry_hash = v.hash from v where v.hash is not null and j.id = v.id returning j.id)
    select (select count(*) from placed) as placed`;
  prepareText(text);
  const { rows } = await trx.executeQuery<{ placed: string }>(CompiledQuery.raw(text, params));
  if (Number(rows[0]?.placed) !== chunk.length) throw new Error('journal entries were placed by the log already');
}

/** The log's entries from leaf index `from`, in order, at most `limit`. */
export async function sequencedEntries(db: Db, book: Book, from: number, limit: number): Promise<StoredEntry[]> {
  const rows = await db
    .selectFrom('ledger_places as p')
    .innerJoin('journal_entries as j', 'j.id', 'p.entry_id')
    .select(ENTRY_COLUMNS)
    .where('p.book', '=', book)
    .where('p.leaf', '>=', from)
    .orderBy('p.leaf')
    .limit(limit)
    .execute();
  return withPostings(db, rows);
}

/** The leaf hashes of the log's entries from leaf `from` to before `to` (the first `to` by default), in order (hex). */
export async function leafHashes(db: Db, book: Book, to: number, from = 0): Promise<string[]> {
  const rows = await db
    .selectFrom('ledger_places as p')
    .innerJoin('journal_entries as j', 'j.id', 'p.entry_id')
    .select(['p.leaf', 'j.entry_hash'])
    .where('p.book', '=', book)
    .where('p.leaf', '<', to)
    .where('p.leaf', '>=', from)
    .orderBy('p.leaf')
    .execute();
  return rows.map((r) => r.entry_hash as string);
}

/** The entries of a donation or of a contribution, with their places, oldest first. */
export async function entriesOfCause(db: Db, book: Book, cause: { donation_id: number } | { contribution_id: number }): Promise<StoredEntry[]> {
  return withPostings(db, await entriesOfCauseQuery(db, book, cause).execute());
}

/** entriesOfCause's read, found by the cause's index (migration 058). */
export function entriesOfCauseQuery(db: Db, book: Book, cause: { donation_id: number } | { contribution_id: number }) {
  const q = entriesWithPlaces(db).select(ENTRY_COLUMNS).where('j.book', '=', book);
  return ('donation_id' in cause ? q.where('j.donation_id', '=', cause.donation_id) : q.where('j.contribution_id', '=', cause.contribution_id)).orderBy('j.id');
}
