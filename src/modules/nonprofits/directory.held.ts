// A node's image of the directory (directory.memory.ts, ADR 32): which reads a search at given
// epochs uses, and the load of a new image, in the background and one at a time, when they moved.
import type { Deps } from '../../deps.ts';
import { Abandoned, databaseReads, DirectoryImage, Refused, sameEpochs, type CandidateReads, type Epochs } from './directory.memory.ts';
import * as store from './search.store.ts';

declare module '../../deps.ts' {
  interface Runtime {
    directory: DirectoryInMemory;
  }
}

/**
 * A node's image of the directory: which reads a search at given epochs uses, and the load of
 * a new image when the epochs moved (in the background, one at a time; a load the epochs
 * overtake is abandoned at its next page and tried again no sooner than it had run).
 */
export class DirectoryInMemory {
  readonly #deps: Deps;
  readonly #database: CandidateReads;
  #image: DirectoryImage | undefined;
  #loading: Promise<void> | undefined;
  /** Epochs at which the database held what an image cannot answer alike: not loaded again at them. */
  #refused: Epochs | undefined;
  #notBefore = 0;
  #closed = false;

  constructor(deps: Deps) {
    this.#deps = deps;
    this.#database = databaseReads(deps.reads);
  }

  get held(): DirectoryImage | undefined {
    return this.#image;
  }

  get loading(): boolean {
    return this.#loading !== undefined;
  }

  /** The reads for a search that read these epochs: the image when it was read at them; otherwise the database, and a load begins. */
  readsAt(epochs: Epochs): CandidateReads {
    const image = this.#image;
    if (image !== undefined && sameEpochs(image.epochs, epochs)) return image;
    if (this.#loading === undefined && !this.#closed && Date.now() >= this.#notBefore && !(this.#refused !== undefined && sameEpochs(this.#refused, epochs))) {
      this.#loading = this.#load().finally(() => {
        this.#loading = undefined;
      });
    }
    return this.#database;
  }

  /** Loads an image now (unless one at the current epochs is held, or none is to be) and resolves when it is held or the load ended otherwise. */
  async warm(): Promise<void> {
    // DIRECTORY_IN_MEMORY=false: searches never ask for an image, so none is made.
    if (!this.#deps.config.directoryInMemory) return;
    await this.#loading;
    const epochs = await store.directoryEpochs(this.#deps.reads);
    this.#notBefore = 0;
    this.readsAt(epochs);
    await this.#loading;
  }

  /** Stops loading (at the next page) and waits for it. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#loading;
  }

  async #load(): Promise<void> {
    const db = this.#deps.reads;
    const log = this.#deps.log;
    // The image held is of other epochs: no search reads it any more.
    this.#image = undefined;
    const started = Date.now();
    let epochs: Epochs | undefined;
    try {
      const go = async () => {
        // Other work goes on between pages (node:sqlite answers without returning to the event loop).
        await new Promise((resolve) => setImmediate(resolve));
        const now = await store.directoryEpochs(db);
        epochs ??= now;
        return !this.#closed && sameEpochs(epochs, now);
      };
      await go();
      const image = await DirectoryImage.load(db, go);
      if (this.#closed) return;
      this.#image = image;
      log.info(
        { organisations: image.organisations, entries: image.entries, seconds: (Date.now() - started) / 1000, mb: Math.round(image.bytes / 1e6) },
        'directory held in memory',
      );
    } catch (err) {
      if (err instanceof Refused) {
        this.#refused = epochs;
        log.warn({ reason: err.message }, 'directory not held in memory: searches read the database');
      } else if (err instanceof Abandoned || this.#closed) {
        this.#notBefore = Date.now() + (Date.now() - started);
      } else {
        this.#notBefore = Date.now() + 60_000;
        log.error({ err }, 'directory not held in memory: the load failed; searches read the database');
      }
    }
  }
}
