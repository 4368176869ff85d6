// The two books of rules §14. Every user, fund, ledger account, journal
// entry, posting, donation, gift, contribution and scheduled donation carries
// the book it belongs to; a test key (`alm_test_`) acts in the sandbox book,
// everything else in the live book. Nothing ever crosses between them: the
// database refuses a posting whose account or entry is of another book
// (composite foreign keys on `(id, book)`), and every lookup of an object on a
// caller's behalf names the caller's book (see ADR 10).
export const BOOKS = ['live', 'test'] as const;
export type Book = (typeof BOOKS)[number];

export function isBook(value: unknown): value is Book {
  return value === 'live' || value === 'test';
}

/** Whoever is looking: an API caller, a signed-in web user (live), an anonymous visitor (live, no user). */
export interface Viewer {
  user_id: number | null;
  book: Book;
}

/**
 * Whether a viewer may see an object already read (a user): an object of the
 * other book does not exist for them (404, never 403, never a hint). Stores
 * apply the same rule in SQL, by the viewer's book.
 */
export function sameBook(viewer: { book: Book }, object: { book: Book }): boolean {
  return viewer.book === object.book;
}
