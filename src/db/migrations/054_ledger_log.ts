// A ledger anyone can verify (docs/rules.md §26, ADR 28). Each journal entry carries the hash of
// its canonical encoding, written with it, and, once its book's log has taken it, its place there
// (its leaf index) and the hash of the chain up to it; checkpoints are the log's Merkle tree heads, signed; a
// witness's cosignature of one is kept beside it; the log's own key, when none is configured, is
// made once and kept here.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../database.ts';
import { columnTypes } from '../types.ts';

export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const t = columnTypes(engine);
  await db.schema.alterTable('journal_entries').addColumn('entry_hash', 'text').execute();
  // The entry's leaf index in its book's log, from 0, and the chain's hash up to it (SHA-256 of
  // the previous entry's chain hash and this entry's hash; the first's previous: 32 zero bytes).
  await db.schema.alterTable('journal_entries').addColumn('log_seq', t.ref).execute();
  await db.schema.alterTable('journal_entries').addColumn('chain_hash', 'text').execute();
  await db.schema.createIndex('journal_entries_log_seq').unique().on('journal_entries').columns(['book', 'log_seq']).where(sql.ref('log_seq'), 'is not', null).execute();
  // The entries the log has yet to take, found without reading the ones it took.
  await db.schema.createIndex('journal_entries_unsequenced').on('journal_entries').columns(['book', 'id']).where(sql.ref('log_seq'), 'is', null).execute();
  await db.schema
    .createTable('ledger_checkpoints')
    .addColumn('book', 'text', (c) => c.notNull())
    .addColumn('size', t.ref, (c) => c.notNull())
    .addColumn('root_hash', 'text', (c) => c.notNull())
    // The signed note (C2SP tlog-checkpoint), and the verifier key of the key that signed it.
    .addColumn('note', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('ledger_checkpoints_pk', ['book', 'size'])
    .execute();
  await db.schema
    .createTable('ledger_cosignatures')
    .addColumn('book', 'text', (c) => c.notNull())
    .addColumn('size', t.ref, (c) => c.notNull())
    .addColumn('witness', 'text', (c) => c.notNull())
    // The witness's signature line (cosignature/v1), as it is appended to the note.
    .addColumn('line', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('ledger_cosignatures_pk', ['book', 'size', 'witness'])
    .execute();
  await db.schema
    .createTable('ledger_keys')
    .addColumn('id', t.id, (c) => t.idConstraints(c))
    .addColumn('name', 'text', (c) => c.notNull())
    // PKCS #8 PEM of an Ed25519 key the node made (no LEDGER_SIGNING_KEY was configured).
    .addColumn('private_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('retired_at', 'text')
    .execute();
}
