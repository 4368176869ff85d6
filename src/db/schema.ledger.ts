// The ledger's tables: accounts, the journal and its postings, and what makes the journal
// verifiable (migration 054; docs/rules.md §26).
import type { ColumnType, Generated } from 'kysely';
import type { Book } from '../shared/book.ts';

export interface LedgerAccountsTable {
  id: Generated<number>;
  fund_id: number | null;
  kind: string;
  balance_cents: number;
  /** rules §14: 'live' or 'test' (shared/book.ts). */
  book: Book;
}

export interface JournalEntriesTable {
  id: Generated<number>;
  memo: string;
  donation_id: number | null;
  gift_id: number | null;
  contribution_id: number | null;
  audit_id: number | null;
  /** A match's hold or its release (rules §22). */
  match_id: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: string;
  /** rules §14: 'live' or 'test' (shared/book.ts). */
  book: Book;
  /** The hash of the entry's canonical encoding (hex; rules §26), written with it; null before migration 054. */
  entry_hash: ColumnType<string | null, string | null | undefined, string | null>;
}

/** An entry's place in its book's log: its leaf index and the chain's hash up to it (hex; rules §26). */
export interface LedgerPlacesTable {
  book: Book;
  leaf: number;
  entry_id: number;
  chain_hash: string;
}

/** An entry its book's log has yet to take (PostgreSQL's writers; rules §26). */
export interface LedgerWaitingTable {
  book: Book;
  entry_id: number;
  /** The hash written with the entry, copied by the trigger that names it (061); null for an entry without one. */
  entry_hash: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface PostingsTable {
  id: Generated<number>;
  entry_id: number;
  account_id: number;
  amount_cents: number;
  /** rules §14: 'live' or 'test' (shared/book.ts). */
  book: Book;
}

/** A signed tree head of a book's log: its size, root (hex), signed note and the verifier key that signed it. */
export interface LedgerCheckpointsTable {
  book: Book;
  size: number;
  root_hash: string;
  note: string;
  key: string;
  created_at: string;
  /** The hashes (hex, JSON array) of the whole subtrees its tree is made of; null before migration 055. */
  compact_range: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A witness's cosignature line of a checkpoint. */
export interface LedgerCosignaturesTable {
  book: Book;
  size: number;
  witness: string;
  line: string;
  created_at: string;
}

/** A log key the node made (PKCS #8 PEM), when none is configured; a retired one signs nothing new. */
export interface LedgerKeysTable {
  id: Generated<number>;
  name: string;
  private_key: string;
  created_at: string;
  retired_at: string | null;
}
