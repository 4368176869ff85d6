// Resolved API keys kept in memory, each with the auth epoch read before it
// was resolved. An entry serves only while the epoch is unchanged; any
// revocation raises the epoch, so a revoked key fails on the next request on
// every node. Reading the epoch is one primary-key lookup instead of the
// key/user/fund join, and concurrent requests share it (db/fresh-reads.ts). The epoch is stamped
// with the count of undone writes (Stamp): an epoch read from writes the database then undid
// serves nothing after, though later writes raise it to the same number.
import type { Caller } from '../../shared/caller.ts';
import { sameStamp, type Stamp } from '../../db/fresh-reads.ts';

const MAX_ENTRIES = 10_000;

export class CallerCache {
  readonly #entries = new Map<string, { caller: Caller; epoch: Stamp }>();

  get(keyHash: string, epoch: Stamp): Caller | undefined {
    const entry = this.#entries.get(keyHash);
    if (entry === undefined) return undefined;
    if (!sameStamp(entry.epoch, epoch)) {
      this.#entries.delete(keyHash);
      return undefined;
    }
    return entry.caller;
  }

  set(keyHash: string, epoch: Stamp, caller: Caller): void {
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    this.#entries.set(keyHash, { caller, epoch });
  }
}
