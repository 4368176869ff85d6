// The log's place given by the writer (docs/rules.md §26, ADR 28). On SQLite every write
// transaction runs alone (BEGIN IMMEDIATE, one at a time on every process), so the transaction
// that writes an entry may also give it its leaf index and chain hash, from the log's last entry
// read in that transaction: no lock is added, commit order is write order, and the sequencer has
// nothing left to do. On PostgreSQL writers run side by side; the sequencer gives the places.
import { hash } from 'node:crypto';
import { dialectOf } from '../../db/dialect.ts';
import type { Trx } from '../../db/database.ts';
import { BOOKS, type Book } from '../../shared/book.ts';
import { lastSequenced } from './ledger.log.store.ts';

/** The chain's hash before the first entry. */
export const CHAIN_START = Buffer.alloc(32).toString('hex');

/** The next chain hash: SHA-256(previous chain hash || entry hash), both as their 32 bytes. */
export function chainHash(previous: string, entry: string): string {
  // One call over both (one buffer): half the time of a hash object fed twice, the same bytes out.
  return hash('sha256', Buffer.from(previous + entry, 'hex'), 'hex');
}

/** Where the next entries of each book go in its log, advancing as they are placed. */
export class LogTail {
  readonly #next = new Map<Book, { seq: number; chain: string }>();

  private constructor(tails: ReadonlyArray<readonly [Book, { log_seq: number; chain_hash: string } | undefined]>) {
    for (const [book, last] of tails) this.#next.set(book, last === undefined ? { seq: 0, chain: CHAIN_START } : { seq: last.log_seq + 1, chain: last.chain_hash });
  }

  /**
   * The tail of `books`' logs, read in `trx`, where the writer places what it writes (SQLite);
   * undefined where the sequencer does (PostgreSQL). Read once per transaction: never kept across
   * transactions (one rolled back, or another process's, would move it).
   */
  static async open(trx: Trx, books: readonly Book[] = BOOKS): Promise<LogTail | undefined> {
    if (dialectOf(trx).engine !== 'sqlite') return undefined;
    return new LogTail(await Promise.all(books.map(async (book) => [book, await lastSequenced(trx, book)] as const)));
  }

  /** The next place of `book`'s log, for an entry of leaf hash `entryHash` (hex). */
  place(book: Book, entryHash: string): { log_seq: number; chain_hash: string } {
    const next = this.#next.get(book);
    if (next === undefined) throw new Error(`the log tail of ${book} was not read`);
    const chain = chainHash(next.chain, entryHash);
    this.#next.set(book, { seq: next.seq + 1, chain });
    return { log_seq: next.seq, chain_hash: chain };
  }
}
