// A BMF file read on a worker thread (bmf.worker.ts): its header, then its
// rows as directory rows or rejections, in chunks, in file order. The import
// writes one chunk while the worker parses the next.
import { Worker } from 'node:worker_threads';
import type { ZipCentroids } from './bmf.ts';
import type { NonProfitInput } from './nonprofits.store.ts';

/** A data line of the file: the row it makes, or why it makes none. */
export type ReadRow = { line: number; input: NonProfitInput } | { line: number; reject: string };

export type FromReader = { kind: 'header'; header: string[] } | { kind: 'rows'; rows: ReadRow[]; bytes: number } | { kind: 'end' } | { kind: 'failed'; message: string };

export type ToReader = { more: number };

/** What the reader yields: the header (before the first row), then chunks of rows with the file's bytes read so far. */
export type ReadChunk = Extract<FromReader, { kind: 'header' | 'rows' }>;

const CHUNK_ROWS = 2_000;
const CHUNKS_AHEAD = 8;

/**
 * The file's header and rows. After yielding every row read, throws when the
 * file could not be read to its end (a truncated gzip stream, a missing file).
 * Stopping early (break) ends the worker.
 */
export async function* readBmfRows(file: string, zips: ZipCentroids): AsyncGenerator<ReadChunk> {
  const worker = new Worker(new URL('./bmf.worker.ts', import.meta.url), { workerData: { file, zips, chunkRows: CHUNK_ROWS, chunksAhead: CHUNKS_AHEAD } });
  const arrived: FromReader[] = [];
  let failure: Error | undefined;
  let exited = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  worker.on('message', (message: FromReader) => {
    arrived.push(message);
    notify();
  });
  worker.on('error', (error) => {
    failure = error;
    notify();
  });
  worker.on('exit', () => {
    exited = true;
    notify();
  });
  try {
    for (;;) {
      const message = arrived.shift();
      if (message === undefined) {
        if (failure !== undefined) throw failure;
        if (exited) throw new Error('the reading thread stopped before the end of the file');
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      if (message.kind === 'end') return;
      if (message.kind === 'failed') throw new Error(message.message);
      yield message;
      if (message.kind === 'rows') worker.postMessage({ more: 1 } satisfies ToReader);
    }
  } finally {
    await worker.terminate();
  }
}
