// The canonical encoding of a journal entry (docs/rules.md §26), the bytes its leaf hash is of: the
// UTF-8 of the JSON text (ECMAScript's JSON.stringify, no spaces) of the array
//   ["almoner.journal-entry.v1", book, id, created_at, memo, donation_id, gift_id, contribution_id,
//    audit_id, match_id, [[account_id, amount_cents], ...]]
// ids and cents as JSON integers, an absent cause as null, the postings ordered by account id then
// amount. Its leaf hash is SHA-256(0x00 || those bytes) (RFC 6962), hex in the database.
import { assert, assertSafeInteger } from '../../shared/assert.ts';
import { textLeafHash } from '../../shared/merkle.ts';
import type { Book } from '../../shared/book.ts';

export const ENTRY_ENCODING = 'almoner.journal-entry.v1';

/** An entry as its encoding names it. */
export interface EncodedEntry {
  id: number;
  book: Book;
  created_at: string;
  memo: string;
  donation_id: number | null;
  gift_id: number | null;
  contribution_id: number | null;
  audit_id: number | null;
  match_id: number | null;
  postings: ReadonlyArray<{ account_id: number; amount_cents: number }>;
}

/** The canonical encoding's text. */
export function entryText(e: EncodedEntry): string {
  assertSafeInteger(e.id, 'an encoded number');
  const postings = e.postings.map((p) => {
    assertSafeInteger(p.account_id, 'an encoded number');
    assertSafeInteger(p.amount_cents, 'an encoded number');
    return [p.account_id, p.amount_cents] as const;
  });
  postings.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return JSON.stringify([ENTRY_ENCODING, e.book, e.id, e.created_at, e.memo, e.donation_id, e.gift_id, e.contribution_id, e.audit_id, e.match_id, postings]);
}

/** The entry's leaf hash, hex. */
export function entryHash(e: EncodedEntry): string {
  assert(e.postings.length > 0, 'an entry has postings');
  return textLeafHash(entryText(e));
}

/**
 * The short verification code a receipt prints: the first 64 bits of the entry's leaf hash, as
 * four groups of four upper-case hex digits (3FA9-1C2B-7D4E-0A11). Whoever holds the exported log
 * finds the one entry whose leaf hash begins so (`almoner verify --code`).
 */
export function verificationCode(leafHashHex: string): string {
  assert(/^[0-9a-f]{64}$/.test(leafHashHex), 'a leaf hash is 64 hex digits');
  return (leafHashHex.slice(0, 16).toUpperCase().match(/.{4}/g) as string[]).join('-');
}

/** The leaf hash prefix (lower-case hex) a verification code stands for; undefined if it is not one. */
export function codePrefix(code: string): string | undefined {
  const hex = code.trim().replace(/-/g, '').toLowerCase();
  return /^[0-9a-f]{16}$/.test(hex) ? hex : undefined;
}
