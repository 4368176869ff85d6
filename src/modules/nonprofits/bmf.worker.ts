// The importer's reading thread: one BMF file parsed and each row turned into
// a directory row (or the reason it cannot be one), sent to the importer in
// chunks (bmf-reader.ts). Parsing and shaping the rows is nearly half of an
// import's work; on this thread it runs beside the database's, on another core.
import { parentPort, workerData } from 'node:worker_threads';
import { createReadStream } from 'node:fs';
import { readBmf, toNonProfitInput, type ZipCentroids } from './bmf.ts';
import type { FromReader, ReadRow, ToReader } from './bmf-reader.ts';

const { file, zips, chunkRows, chunksAhead } = workerData as { file: string; zips: ZipCentroids; chunkRows: number; chunksAhead: number };
const port = parentPort;
if (port === null) throw new Error('bmf.worker.ts runs as a worker thread');

// The importer asks for more as it takes chunks: at most `chunksAhead` wait in memory.
let granted = chunksAhead;
let wake: (() => void) | undefined;
port.on('message', (message: ToReader) => {
  granted += message.more;
  wake?.();
});
const send = (message: FromReader) => port.postMessage(message);

async function readFile(): Promise<void> {
  let bytes = 0;
  // Compressed bytes as they are read, for the progress bar's ETA.
  const counter = createReadStream(file);
  counter.on('data', (chunk) => {
    bytes += chunk.length;
  });
  let rows: ReadRow[] = [];
  const flush = async () => {
    if (rows.length === 0) return;
    while (granted === 0) await new Promise<void>((resolve) => (wake = resolve));
    granted -= 1;
    send({ kind: 'rows', rows, bytes });
    rows = [];
  };
  let headerSent = false;
  try {
    for await (const { line, record, header, field_count } of readBmf(file, counter)) {
      if (!headerSent) {
        headerSent = true;
        send({ kind: 'header', header: [...header] });
      }
      if (field_count !== header.length) rows.push({ line, reject: `${field_count} fields where the header has ${header.length}` });
      else {
        const input = toNonProfitInput(record, zips);
        rows.push('reject' in input ? { line, reject: input.reject } : { line, input });
      }
      if (rows.length >= chunkRows) await flush();
    }
    await flush();
    send({ kind: 'end' });
  } catch (error) {
    // What was read is the importer's; the error says why the rest is not.
    await flush();
    send({ kind: 'failed', message: (error as Error).message });
  }
}

await readFile();
port.close();
