// The journal's log (docs/rules.md §26, ADR 28): each book's entries taken in commit order into a
// hash chain and a Merkle tree (RFC 6962), checkpoints of it signed with the platform's Ed25519 key
// (C2SP tlog-checkpoint), witnesses' cosignatures kept beside them, and the proofs a donor checks.
import { CHAIN_START, chainHash } from './ledger.tail.ts';
import type { Deps } from '../../deps.ts';
import type { Db } from '../../db/database.ts';
import { BOOKS, type Book } from '../../shared/book.ts';
import { consistencyProof, extendRange, inclusionProof, rangeRoot, type CompactRange } from '../../shared/merkle.ts';
import { checkpointText, parseVerifierKey, signNote, splitNote, verifierKeyText, verifyNote } from '../../shared/signed-note.ts';
import { AppError } from '../../shared/errors.ts';
import { entryHash, entryText, verificationCode, type EncodedEntry } from './ledger.encoding.ts';
import * as store from './ledger.log.store.ts';
import * as txids from './ledger.txid.store.ts';
import * as checkpoints from './ledger.checkpoint.store.ts';
import { logKey, originFor } from './ledger.keys.ts';

export { CHAIN_START, chainHash } from './ledger.tail.ts';
export { logKey, logOrigin, logVerifierKey, originFor, platformVerifierKeys } from './ledger.keys.ts';

/**
 * Takes the book's entries not yet in its log that it can take now (up to `limit`; on PostgreSQL
 * in the order of the transactions that wrote them, then of ids, once no transaction older than
 * theirs still runs; on SQLite oldest id first, from `fromId`), in one
 * transaction under the log's lock: each gets the next leaf index and chain hash, from the hash
 * written with it (an entry written before entries carried one is hashed from its content now).
 * An entry edited after its commit keeps the hash it was written with: `almoner check` compares
 * every entry's content with it and names the one that differs.
 */
export async function sequenceLog(deps: Deps, book: Book, limit = 5000, fromId = 0): Promise<{ taken: number; lastId: number | undefined; placed: PlacedLeaves }> {
  // Nothing waiting (each run's end; nearly always on SQLite): a probe, not a write transaction under the log's lock.
  if (!(await store.anyWaiting(deps.db, book, fromId))) return { taken: 0, lastId: undefined, placed: { from: 0, hashes: [] } };
  return deps.db.transaction().execute(async (trx) => {
    await store.lockLog(trx, book);
    await store.commitWithoutWaiting(trx); // the next commit that waits (a checkpoint's) makes it durable first
    if (await txids.rebaseMovedLog(trx, book))
      deps.log.warn({ book }, "the ledger's log is ahead of this database's transaction ids (restored into another cluster): its waiting entries were renumbered");
    const last = await store.lastSequenced(trx, book);
    const entries = await store.unsequencedHashes(trx, book, limit, fromId);
    const first = last === undefined ? 0 : last.log_seq + 1;
    let chain = last === undefined ? CHAIN_START : last.chain_hash;
    const hashes = entries.map((e) => e.entry_hash ?? entryHash(e.entry as EncodedEntry));
    const places = entries.map((e, i) => {
      const hash = hashes[i] as string;
      chain = chainHash(chain, hash);
      // The hash is written only where it was made now (an entry from before 054).
      return { id: e.id, log_seq: first + i, chain_hash: chain, entry_hash: e.entry_hash === null ? hash : null };
    });
    await store.setPlaces(trx, book, places);
    return { taken: places.length, lastId: places.at(-1)?.id, placed: { from: first, hashes } };
  });
}

/** The leaf hashes (hex) a sequencer gave places to, from leaf `from` on, in order. */
export interface PlacedLeaves {
  from: number;
  hashes: string[];
}

/** Most leaf hashes a run of the sequencer keeps for its checkpoint (beyond them, it reads them back). */
const KEPT_LEAVES = 100_000;

/** `placed` followed by `more` when they run on (no other node placed entries between), else `more` alone; an empty `more` changes nothing. */
function runOn(placed: PlacedLeaves | undefined, more: PlacedLeaves): PlacedLeaves | undefined {
  if (more.hashes.length === 0) return placed;
  if (placed !== undefined && placed.from + placed.hashes.length === more.from) {
    if (placed.hashes.length + more.hashes.length > KEPT_LEAVES) return undefined;
    placed.hashes.push(...more.hashes);
    return placed;
  }
  return more.hashes.length > KEPT_LEAVES ? undefined : more;
}

/**
 * SQLite: where a book's sequencer starts reading the waiting: every entry below `id` was in the
 * log when it last looked from the start, `at` (monotonic ms). An entry whose id was taken earlier
 * but committed later is found by the next look from the start, at most FULL_LOOK_MS later, and
 * takes its place then. PostgreSQL reads from the book's last place instead (its txid order) and
 * passes no entry by: the floor is not read there.
 */
export interface LedgerFloors {
  floors: Map<Book, { id: number; at: number }>;
}

declare module '../../deps.ts' {
  interface Runtime {
    ledger: LedgerFloors;
  }
}

export function createLedgerFloors(): LedgerFloors {
  return { floors: new Map() };
}

const FULL_LOOK_MS = 60_000;

/**
 * Longest an unbounded run waits for transactions older than the entries committed before it
 * (PostgreSQL: such entries cannot be taken while one runs, on any database of the cluster).
 */
const HELD_BACK_WAIT_MS = 30_000;

/** Entries placed by one unbounded run (the CLI's) past which the log's tables are vacuumed and analyzed. */
const VACUUM_AFTER = 100_000;

/**
 * Sequences until nothing waits, or (with `budgetMs`) until that long has passed, a thousand entries a
 * transaction, so a server's job never holds the database or its event loop for long. On SQLite it
 * reads from the book's floor, from the start once a minute; an unbounded run (the CLI) ends with
 * a look from the start. An unbounded run takes every entry committed before it: on PostgreSQL it
 * waits (up to HELD_BACK_WAIT_MS) for the older transactions still running that hold them back.
 * The log's size.
 */
export async function sequenceAll(deps: Deps, book: Book, budgetMs = Infinity): Promise<number> {
  return (await sequenceKept(deps, book, budgetMs)).size;
}

/** Told the number of entries a run has placed so far, after each transaction (a long take-up's progress). */
export type OnPlaced = (placed: number) => void;

/** sequenceAll, with the leaf hashes it placed last in a row (when they were not too many to keep). */
async function sequenceKept(deps: Deps, book: Book, budgetMs: number, onPlaced?: OnPlaced): Promise<{ size: number; placed: PlacedLeaves | undefined }> {
  const started = performance.now();
  // An unbounded run takes every entry committed before it (PostgreSQL: waiting for older transactions still running).
  const before = budgetMs === Infinity ? await txids.nextTxid(deps.db) : undefined;
  const { floors } = deps.runtime.ledger;
  const known = floors.get(book);
  const fromStart = known === undefined || started - known.at > FULL_LOOK_MS;
  let from = fromStart ? 0 : known.id;
  let placed: PlacedLeaves | undefined;
  let count = 0;
  // Everything the log can take now, read from the start (no floor).
  const fromTheStart = async () => {
    for (let taken = await sequenceLog(deps, book, 1000, 0); taken.taken > 0; taken = await sequenceLog(deps, book, 1000, 0)) {
      placed = runOn(placed, taken.placed);
      count += taken.taken;
      onPlaced?.(count);
    }
  };
  for (;;) {
    const taken = await sequenceLog(deps, book, 1000, from);
    if (taken.lastId !== undefined) from = taken.lastId + 1;
    placed = runOn(placed, taken.placed);
    count += taken.taken;
    if (taken.taken > 0) onPlaced?.(count);
    if (taken.taken === 0 || performance.now() - started >= budgetMs) break;
  }
  if (budgetMs === Infinity) {
    // Many placed at once: the places vacuumed and the planner told (vacuumLog).
    if (count >= VACUUM_AFTER) await store.vacuumLog(deps.db);
    if (!fromStart) await fromTheStart();
    if (before !== undefined) {
      const until = performance.now() + HELD_BACK_WAIT_MS;
      while (await txids.anyHeldBack(deps.db, book, before)) {
        if (performance.now() > until) {
          deps.log.warn(
            { book, waitedMs: HELD_BACK_WAIT_MS },
            "entries committed before the ledger's log was taken up still wait behind an older transaction; the job takes them once it ends",
          );
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
        await fromTheStart();
      }
    }
  }
  floors.set(book, { id: from, at: fromStart || budgetMs === Infinity ? started : (known?.at ?? started) });
  const last = await store.lastSequenced(deps.db, book);
  return { size: last === undefined ? 0 : last.log_seq + 1, placed };
}

/**
 * The leaf hashes of the log's entries from leaf `from` to before `to`, as bytes: from `placed`
 * where it holds them all (the sequencer's run just before), else read.
 */
async function leavesOf(db: Db, book: Book, to: number, from = 0, placed?: PlacedLeaves): Promise<Buffer[]> {
  const kept = placed !== undefined && placed.from <= from && placed.from + placed.hashes.length >= to;
  const hex = kept ? placed.hashes.slice(from - placed.from, to - placed.from) : await store.leafHashes(db, book, to, from);
  const leaves = hex.map((h) => Buffer.from(h, 'hex'));
  if (leaves.length !== to - from) throw new Error(`the ${book} log has ${leaves.length} entries from leaf ${from} where ${to - from} were asked`);
  return leaves;
}

/** The compact range of the log's first `size` entries: the last checkpoint's extended by the entries after it. */
async function rangeOf(db: Db, book: Book, size: number, latest: checkpoints.StoredCheckpoint | undefined, placed?: PlacedLeaves): Promise<CompactRange> {
  if (latest?.compact_range !== null && latest?.compact_range !== undefined && latest.size <= size) {
    const from = { size: latest.size, hashes: (JSON.parse(latest.compact_range) as string[]).map((h) => Buffer.from(h, 'hex')) };
    return extendRange(from, await leavesOf(db, book, size, latest.size, placed));
  }
  return extendRange({ size: 0, hashes: [] }, await leavesOf(db, book, size, 0, placed));
}

/**
 * A checkpoint of the book's log, signed: made when `force`, or when at least
 * LEDGER_CHECKPOINT_ENTRIES entries came since the last one, or any came and the last is older
 * than LEDGER_CHECKPOINT_INTERVAL_MS. The log is taken up first: all of it (the CLI), or for
 * `budgetMs` (the job). Only the entries since the last checkpoint are hashed (its compact range).
 * The newest checkpoint (undefined: none made, none due).
 */
export async function checkpoint(
  deps: Deps,
  book: Book,
  options: { force?: boolean; budgetMs?: number; onPlaced?: OnPlaced } = {},
): Promise<checkpoints.StoredCheckpoint | undefined> {
  const { size, placed } = await sequenceKept(deps, book, options.budgetMs ?? Infinity, options.onPlaced);
  const latest = await checkpoints.latestCheckpoint(deps.db, book);
  if (latest !== undefined && latest.size >= size) return latest;
  if (size === 0) return undefined;
  const { checkpointEntries, checkpointIntervalMs } = deps.config.ledger;
  const age = latest === undefined ? Infinity : deps.clock.now().getTime() - Date.parse(latest.created_at);
  const due = options.force === true || size - (latest?.size ?? 0) >= checkpointEntries || (checkpointIntervalMs > 0 && age >= checkpointIntervalMs);
  if (!due) return latest;
  const range = await rangeOf(deps.db, book, size, latest, placed);
  const root = rangeRoot(range);
  const key = await logKey(deps);
  const made: checkpoints.StoredCheckpoint = {
    book,
    size,
    root_hash: root.toString('hex'),
    note: signNote(checkpointText(originFor(key.name, book), size, root), key),
    key: verifierKeyText(key.name, key.publicKey),
    created_at: deps.clock.now().toISOString(),
    compact_range: JSON.stringify(range.hashes.map((h) => h.toString('hex'))),
  };
  await deps.db.transaction().execute(async (trx) => {
    // Another node may have made the same size first: the same tree, kept once.
    if ((await checkpoints.checkpointOf(trx, book, size)) === undefined) await checkpoints.insertCheckpoint(trx, made);
  });
  return (await checkpoints.checkpointOf(deps.db, book, size)) as checkpoints.StoredCheckpoint;
}

/** The book's log as `almoner verify --export` reads it: each entry's place, encoding and chain hash, in order. */
export async function exportJournal(deps: Deps, book: Book, write: (line: { leaf_index: number; encoded: string; chain_hash: string }) => void): Promise<number> {
  await store.durableSoFar(deps.db); // the sequencer's places, committed without waiting, once durable
  let count = 0;
  for await (const e of inLogOrder(deps.db, book)) {
    write({ leaf_index: e.log_seq as number, encoded: entryText(e), chain_hash: e.chain_hash as string });
    count += 1;
  }
  return count;
}

/** The book's log, entry by entry from leaf 0, read 5,000 at a time (the export and `almoner check`). */
export async function* inLogOrder(db: Db, book: Book): AsyncGenerator<store.StoredEntry> {
  for (let from = 0; ;) {
    const entries = await store.sequencedEntries(db, book, from, 5000);
    if (entries.length === 0) return;
    yield* entries;
    from = (entries.at(-1)?.log_seq as number) + 1;
  }
}

/** The job: every book's log taken up (for at most a quarter of a second each), and a checkpoint where one is due. */
export async function runLedgerLog(deps: Deps): Promise<void> {
  for (const book of BOOKS) await checkpoint(deps, book, { budgetMs: 250 });
}

/** A checkpoint as the API shows it: the note with its witnesses' cosignatures appended. */
export interface CheckpointView {
  size: number;
  root_hash: string;
  note: string;
  key: string;
  witnesses: string[];
  created_at: string;
}

async function views(deps: Deps, book: Book, rows: readonly checkpoints.StoredCheckpoint[]): Promise<CheckpointView[]> {
  const cosigned = await checkpoints.cosignaturesOf(
    deps.db,
    book,
    rows.map((r) => r.size),
  );
  return rows.map((r) => {
    const lines = cosigned.get(r.size) ?? [];
    return {
      size: r.size,
      root_hash: Buffer.from(r.root_hash, 'hex').toString('base64'),
      note: r.note + lines.map((l) => l.line).join(''),
      key: r.key,
      witnesses: lines.map((l) => l.witness),
      created_at: r.created_at,
    };
  });
}

export async function checkpointPage(deps: Deps, book: Book, limit: number, offset: number): Promise<{ rows: CheckpointView[]; count: number }> {
  const { rows, count } = await checkpoints.checkpointPage(deps.db, book, limit, offset);
  return { rows: await views(deps, book, rows), count };
}

function noCheckpoint(): AppError {
  return new AppError('not_found', 'checkpoint_not_found', 'no checkpoint of that size; GET /v1/ledger/checkpoints lists them');
}

async function viewOf(deps: Deps, book: Book, found: checkpoints.StoredCheckpoint | undefined): Promise<CheckpointView> {
  if (found === undefined) throw noCheckpoint();
  return (await views(deps, book, [found]))[0] as CheckpointView;
}

/** The checkpoint of `size`, or the newest; throws checkpoint_not_found. */
export const checkpointView = async (deps: Deps, book: Book, size: number) => viewOf(deps, book, await checkpoints.checkpointOf(deps.db, book, size));
export const latestCheckpointView = async (deps: Deps, book: Book) => viewOf(deps, book, await checkpoints.latestCheckpoint(deps.db, book));

/** The consistency proof between two checkpoints of the book's log (base64 hashes). */
export async function consistencyBetween(deps: Deps, book: Book, first: number, second: number) {
  if (first > second)
    throw new AppError('unprocessable', 'validation_failed', 'first must be at most second', {
      errors: [{ field: 'first', code: 'validation_failed', message: 'must be at most second' }],
    });
  const [a, b] = await Promise.all([checkpoints.checkpointOf(deps.db, book, first), checkpoints.checkpointOf(deps.db, book, second)]);
  if ((a === undefined && first !== 0) || b === undefined) throw noCheckpoint();
  const proof = consistencyProof(await leavesOf(deps.db, book, second), first, second);
  return { first, second, proof: proof.map((h) => h.toString('base64')) };
}

/** What a journal entry is posted for: a donation or a contribution (its cause column, docs/rules.md §26). */
export type ProofCause = { donation_id: number } | { contribution_id: number };

/**
 * The entries of a donation or a contribution with their inclusion proofs to the newest checkpoint
 * that holds them all. Throws proof_not_ready while one of them is in no checkpoint yet.
 */
export async function proofOf(deps: Deps, book: Book, cause: ProofCause) {
  return proofOfEntries(deps, book, cause, await store.entriesOfCause(deps.db, book, cause));
}

/** proofOf for the cause's entries already read. */
async function proofOfEntries(deps: Deps, book: Book, cause: ProofCause, entries: readonly store.StoredEntry[]) {
  const last = Math.max(...entries.map((e) => (e.log_seq === null ? Infinity : e.log_seq)));
  const covering = entries.length === 0 ? undefined : await checkpoints.latestCheckpoint(deps.db, book);
  if (covering === undefined || !Number.isFinite(last) || covering.size <= last) {
    const what = 'donation_id' in cause ? 'donation' : 'contribution';
    throw new AppError('conflict', 'proof_not_ready', `this ${what}'s entries are not all in a signed checkpoint yet; try again after the next one`);
  }
  const leaves = await leavesOf(deps.db, book, covering.size);
  const [view] = await views(deps, book, [covering]);
  return {
    checkpoint: view as CheckpointView,
    entries: entries.map((e) => ({
      id: e.id,
      leaf_index: e.log_seq as number,
      encoded: entryText(e),
      leaf_hash: Buffer.from(entryHash(e), 'hex').toString('base64'),
      inclusion_proof: inclusionProof(leaves, e.log_seq as number, covering.size).map((h) => h.toString('base64')),
    })),
  };
}

/** A donation's entries with their inclusion proofs (GET /v1/donations/{id}/proof). Throws proof_not_ready. */
export async function proofOfDonation(deps: Deps, book: Book, donationId: number) {
  return { donation_id: donationId, ...(await proofOf(deps, book, { donation_id: donationId })) };
}

/**
 * What a contribution's receipt says of the log (docs/rules.md §26): the short verification code
 * of the entry that made it succeed (its first, for one moved otherwise), that entry's place once
 * the log took it, and the proof of all its entries once a signed checkpoint holds them (null
 * before). Undefined when the contribution has no entry.
 */
export async function receiptLedger(deps: Deps, book: Book, contributionId: number) {
  const entries = await store.entriesOfCause(deps.db, book, { contribution_id: contributionId });
  const named = entries.find((e) => e.memo === 'contribution success') ?? entries[0];
  if (named === undefined) return undefined;
  let proof: Awaited<ReturnType<typeof proofOf>> | null = null;
  try {
    proof = await proofOfEntries(deps, book, { contribution_id: contributionId }, entries);
  } catch (e) {
    if (!(e instanceof AppError && e.code === 'proof_not_ready')) throw e;
  }
  return {
    verification_code: verificationCode(named.entry_hash ?? entryHash(named)),
    entry_id: named.id,
    leaf_index: named.log_seq,
    proof,
  };
}

/**
 * Keeps a witness's cosignature of a checkpoint: `lines`, the cosignature line(s) a witness
 * returned; only those of LEDGER_WITNESSES that verify are kept. Returns the witnesses kept.
 */
export async function acceptCosignatures(deps: Deps, book: Book, size: number, lines: string): Promise<string[]> {
  const found = await checkpoints.checkpointOf(deps.db, book, size);
  if (found === undefined) throw noCheckpoint();
  const witnesses = deps.config.ledger.witnesses.map(parseVerifierKey);
  const { text } = splitNote(found.note);
  const note = `${text}\n${lines.trim()}\n`;
  const { cosignedBy } = verifyNote(note, witnesses);
  const kept: string[] = [];
  for (const { name } of cosignedBy) {
    const line = splitNote(note).signatures.find((s) => s.name === name)?.line as string;
    await checkpoints.saveCosignature(deps.db, { book, size, witness: name, line, created_at: deps.clock.now().toISOString() });
    kept.push(name);
  }
  return kept;
}
