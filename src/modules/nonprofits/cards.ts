// The non-profit as a donation shows it (form 2.2), kept in memory per node.
// A page of 25 donations names up to 25 organisations; reading them with the
// page (a join) cost more than the rest of the query, and they rarely change.
// Every change of their shown fields raises `directory_epoch.records_epoch` in
// its transaction (the importer, upsert); a node reads the counter on each
// use and forgets every card when it moved, as the API key cache does, or when the database undid
// writes the node may have read (db/fresh-reads.ts, Stamp).
import type { Deps } from '../../deps.ts';
import { FreshReads, sameStamp, stamped, type Stamp } from '../../db/fresh-reads.ts';
import { assert } from '../../shared/assert.ts';
import { causeById, causeLogoUrl } from './causes.ts';
import { cardRows, recordsEpoch, type CardRow, type NonProfit } from './nonprofits.store.ts';

export interface NonProfitCard {
  readonly ein: string;
  readonly name: string;
  readonly website: string;
  readonly city: string;
  readonly state: string;
  readonly logo: string;
  readonly public_path: string;
  readonly public_url: string;
  readonly cause_id: number;
}

const MAX_CARDS = 50_000;

/** A node's cards, kept under the records epoch they were read at (stamped), and the shared reads of that epoch. */
export interface CardCache {
  epoch: FreshReads<Stamp>;
  kept: { stamp: Stamp; cards: Map<number, NonProfitCard> };
}

declare module '../../deps.ts' {
  interface Runtime {
    cards: CardCache;
  }
}

/** For platform.ts to build once per node. */
export function createCardCache(deps: Deps): CardCache {
  return { epoch: new FreshReads(stamped(deps.undone, () => recordsEpoch(deps.lookups))), kept: { stamp: { epoch: -1, undone: -1 }, cards: new Map() } };
}

function toCard(publicUrl: string, row: CardRow): NonProfitCard {
  const cause = causeById(row.cause_id);
  assert(cause !== undefined, 'a non-profit has a known cause');
  return Object.freeze({
    ein: row.ein,
    name: row.name,
    website: row.website ?? '',
    city: row.city,
    state: row.state,
    logo: causeLogoUrl(publicUrl, cause),
    public_path: row.slug,
    public_url: `${publicUrl}${row.slug}`,
    cause_id: row.cause_id,
  });
}

/** The card of an organisation already read. */
export function cardOfNonProfit(publicUrl: string, np: NonProfit): NonProfitCard {
  return toCard(publicUrl, { id: np.id, ein: np.ein, name: np.name, website: np.website, city: np.city, state: np.state, cause_id: np.cause_id, slug: np.public_path });
}

/**
 * The records epoch a request's cards are kept under, its read begun now: a read that begins after
 * this call (db/fresh-reads.ts: concurrent requests share it), so fresh for the request. A request
 * that reads other rows first (a list's page) begins it beside them: on PostgreSQL its statement
 * then leaves with theirs, and the request waits for one round trip instead of two.
 */
export function cardsEpoch(deps: Deps): Promise<Stamp> {
  const read = deps.runtime.cards.epoch.get();
  // Awaited by nonProfitCards; a request that fails before it gets there must not leave it unheard.
  read.catch(() => undefined);
  return read;
}

/** The cards of these non-profit ids (each must exist: donations reference them), under `epochRead` (cardsEpoch). */
export async function nonProfitCards(deps: Deps, ids: readonly number[], epochRead: Promise<Stamp> = cardsEpoch(deps)): Promise<ReadonlyMap<number, NonProfitCard>> {
  const cache = deps.runtime.cards;
  const stamp = await epochRead;
  if (!sameStamp(cache.kept.stamp, stamp)) cache.kept = { stamp, cards: new Map() };
  const cards = cache.kept.cards;
  const missing = [...new Set(ids.filter((id) => !cards.has(id)))];
  if (missing.length > 0) {
    if (cards.size + missing.length > MAX_CARDS) cards.clear();
    // Read after the epoch: a card is never older than the epoch it is kept under.
    for (const r of await cardRows(deps.db, missing)) cards.set(r.id, toCard(deps.config.publicUrl, r));
  }
  for (const id of ids) assert(cards.has(id), `non-profit ${id} exists`);
  return cards;
}
