// Checking a book's log (docs/rules.md §26): every entry's hash against its content, the chain
// from the first entry, no gap in the leaf indexes, and each checkpoint's root and signature.
// `almoner check` runs it on the database; `almoner verify --export` on an exported journal
// against the checkpoints published before, with nothing but the log's public key.
import type { Deps } from '../../deps.ts';
import { BOOKS, type Book } from '../../shared/book.ts';
import { leafHash, treeHash } from '../../shared/merkle.ts';
import { checkpointText, parseCheckpoint, parseVerifierKey, verifyNote, type VerifierKey } from '../../shared/signed-note.ts';
import { entryHash } from './ledger.encoding.ts';
import { CHAIN_START, chainHash, inLogOrder, originFor, platformVerifierKeys } from './ledger.log.ts';
import * as store from './ledger.log.store.ts';
import { allCheckpoints } from './ledger.checkpoint.store.ts';

/** One entry of a log as a verifier reads it: its place, its encoding's hash, and the chain hash claimed. */
export interface LoggedLeaf {
  leaf_index: number;
  /** The hash of its content, recomputed (hex). */
  hash: string;
  /** The chain hash the log holds for it (hex). */
  chain_hash: string;
  /** How the entry is named in a message. */
  name: string;
}

/**
 * Walks a log's leaves in order: the indexes run from 0 without a gap, each chain hash follows from
 * the previous one. Returns the leaf hashes (bytes) and the problems, the first bad entry named.
 */
export class ChainWalk {
  readonly leaves: Buffer[] = [];
  readonly problems: string[] = [];
  #chain = CHAIN_START;
  #broken = false;

  add(leaf: LoggedLeaf): void {
    const expected = this.leaves.length;
    if (leaf.leaf_index !== expected && !this.#broken) {
      this.problems.push(`${leaf.name} is at leaf ${leaf.leaf_index} where leaf ${expected} comes next: the log has a gap or a reordering`);
      this.#broken = true;
    }
    this.#chain = chainHash(this.#chain, leaf.hash);
    if (this.#chain !== leaf.chain_hash && !this.#broken) {
      this.problems.push(`the chain breaks at ${leaf.name} (leaf ${leaf.leaf_index}): its chain hash is not that of the entries before it and its own content`);
      this.#broken = true;
    }
    this.leaves.push(Buffer.from(leaf.hash, 'hex'));
  }
}

/** A published checkpoint: its signed note and the verifier key it claims. */
export interface PublishedCheckpoint {
  size: number;
  note: string;
  /** The verifier key it names as its signer (what the platform stored). */
  key?: string;
}

/**
 * Each checkpoint against the leaves: signed by one of `keys` (and, with `witnesses`, cosigned by
 * at least `threshold` of them), for `origin`, and its root the tree hash of its first `size` leaves.
 */
export function checkpointProblems(
  checkpoints: readonly PublishedCheckpoint[],
  leaves: readonly Buffer[],
  keys: readonly VerifierKey[],
  /** The log's origin, or (the platform's own check) each checkpoint's: its signing key's name and the book. */
  origin: string | ((c: PublishedCheckpoint) => string),
  witnesses: { keys: readonly VerifierKey[]; threshold: number } = { keys: [], threshold: 0 },
): string[] {
  const problems: string[] = [];
  const memo = new Map<string, Buffer>();
  // The largest checkpoint whose root holds: a rewrite begins after its entries.
  let good = 0;
  for (const c of [...checkpoints].sort((a, b) => a.size - b.size)) {
    let opened;
    try {
      opened = verifyNote(c.note, [...keys, ...witnesses.keys]);
    } catch (error) {
      problems.push(`checkpoint ${c.size}: ${(error as Error).message}`);
      continue;
    }
    if (opened.signedBy.length === 0) problems.push(`checkpoint ${c.size} is signed by no key the verifier was given`);
    if (opened.cosignedBy.length < witnesses.threshold)
      problems.push(`checkpoint ${c.size} has ${opened.cosignedBy.length} witness cosignatures, fewer than ${witnesses.threshold}`);
    const { origin: named, size, root } = parseCheckpoint(opened.text);
    const expected = typeof origin === 'string' ? origin : origin(c);
    if (named !== expected) problems.push(`checkpoint ${c.size} is of the log ${named}, not ${expected}`);
    if (size > leaves.length) {
      problems.push(`checkpoint ${size} holds more entries than the log (${leaves.length}): entries it signed are gone`);
      continue;
    }
    if (treeHash(leaves, size, memo).equals(root)) good = Math.max(good, size);
    else problems.push(`checkpoint ${size}: its root is not the tree of the log's first ${size} entries: the log was changed at a leaf from ${good} to ${size - 1}`);
    if (opened.text !== checkpointText(named, size, root)) problems.push(`checkpoint ${size}: its text is not a checkpoint's`);
  }
  return problems;
}

/** `almoner check`: every book's log, and its checkpoints against the keys that signed them. */
export async function ledgerProblems(deps: Deps): Promise<string[]> {
  const problems: string[] = [];
  for (const book of BOOKS) problems.push(...(await bookProblems(deps, book)));
  return problems;
}

/**
 * An entry's hash from its content; undefined when a number in it is beyond the exact range
 * (reported, never thrown). An entry without postings is hashed as its stored hash (another check names it).
 */
function hashOf(e: Parameters<typeof entryHash>[0] & { entry_hash: string | null }): string | undefined {
  if (e.postings.length === 0) return e.entry_hash ?? '';
  const exact = [e.id, ...e.postings.flatMap((p) => [p.account_id, p.amount_cents])].every((n) => Number.isSafeInteger(n));
  return exact ? entryHash(e) : undefined;
}

async function bookProblems(deps: Deps, book: Book): Promise<string[]> {
  const walk = new ChainWalk();
  const edited: string[] = [];
  for await (const e of inLogOrder(deps.db, book)) {
    const hash = hashOf(e);
    if (hash === undefined) edited.push(`journal entry ${e.id} (${book} leaf ${e.log_seq}): an amount beyond the exact range cannot be encoded`);
    else if (e.entry_hash !== hash && edited.length === 0) edited.push(`journal entry ${e.id} (${book} leaf ${e.log_seq}): its content no longer matches the hash written with it`);
    walk.add({ leaf_index: e.log_seq as number, hash: hash ?? (e.entry_hash as string), chain_hash: e.chain_hash as string, name: `journal entry ${e.id}` });
  }
  for (const e of await store.unsequencedEntries(deps.db, book, 100_000)) {
    const hash = hashOf(e);
    if (hash === undefined) edited.push(`journal entry ${e.id} (${book}, not yet in the log): an amount beyond the exact range cannot be encoded`);
    else if (e.entry_hash !== null && e.entry_hash !== hash)
      edited.push(`journal entry ${e.id} (${book}, not yet in the log): its content no longer matches the hash written with it`);
  }
  for (const id of await store.unloggedEntries(deps.db, book)) edited.push(`journal entry ${id} (${book}): neither in the log nor waiting for its place`);
  const checkpoints = await allCheckpoints(deps.db, book);
  // The keys the platform signs with (read, never made here: a check writes nothing).
  const keys = [...new Set([...checkpoints.map((c) => c.key), ...(await platformVerifierKeys(deps))])].map(parseVerifierKey);
  return [
    ...edited,
    ...walk.problems.map((p) => `${book}: ${p}`),
    ...checkpointProblems(checkpoints, walk.leaves, keys, (c) => originFor(parseVerifierKey(c.key ?? '').name, book)).map((p) => `${book}: ${p}`),
  ];
}

/** An exported journal's line: an entry's place in its log, its encoding, the chain hash claimed. */
export interface ExportedLeaf {
  leaf_index: number;
  encoded: string;
  chain_hash: string;
}

/** `almoner verify --export`: an exported journal against published checkpoints, with the log's key alone. */
export function verifyExport(
  lines: readonly ExportedLeaf[],
  checkpoints: readonly PublishedCheckpoint[],
  key: string,
  origin: string,
  witnesses: { keys: readonly string[]; threshold: number } = { keys: [], threshold: 0 },
): string[] {
  const walk = new ChainWalk();
  for (const line of lines) {
    const hash = leafHash(Buffer.from(line.encoded, 'utf8')).toString('hex');
    const id = /^\["[^"]+","[^"]+",(\d+),/.exec(line.encoded)?.[1] ?? '?';
    walk.add({ leaf_index: line.leaf_index, hash, chain_hash: line.chain_hash, name: `journal entry ${id}` });
  }
  return [
    ...walk.problems,
    ...checkpointProblems(checkpoints, walk.leaves, [parseVerifierKey(key)], origin, { keys: witnesses.keys.map(parseVerifierKey), threshold: witnesses.threshold }),
  ];
}
