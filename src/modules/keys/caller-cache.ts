// Resolved API keys kept in memory, each with the auth epoch read before it
// was resolved. An entry serves only while the epoch is unchanged; any
// revocation raises the epoch, so a revoked key fails on the next request on
// every node. Reading the epoch is one primary-key lookup instead of the
// key/user/fund join, and concurrent requests share it (db/fresh-reads.ts).
import type { Caller } from '../../shared/caller.ts';

const MAX_ENTRIES = 10_000;

export class CallerCache {
  readonly #entries = new Map<string, { caller: Caller; epoch: number }>();

  get(keyHash: string, epoch: number): Caller | undefined {
    const entry = this.#entries.get(keyHash);
    if (entry === undefined) return undefined;
    if (entry.epoch !== epoch) {
      this.#entries.delete(keyHash);
      return undefined;
    }
    return entry.caller;
  }

  set(keyHash: string, epoch: number, caller: Caller): void {
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    this.#entries.set(keyHash, { caller, epoch });
  }
}
