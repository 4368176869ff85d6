// Files written for something else to pick up (a message for a mail pickup, a bank file for an
// upload, letters, a ledger's export, the IRS's downloads): whole or not at all.
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Text gathered before it is written: a long export is never held whole. */
const FLUSH_BYTES = 256 * 1024;

/**
 * `path` written by `fill` as it goes, a few hundred KB at a time, under a hidden name beside it
 * (`.NAME.PID.partial`), synced, and renamed into place only once all of it is written. Whatever
 * reads the folder never finds a file begun and not finished, nor one emptied while it is written
 * again, and a command that fails half way leaves nothing. `mode` holds for the file written even
 * where one of that name was there before (a file's mode is set only when it is created).
 */
export async function writeWholeAsItGoes<T>(path: string, fill: (write: (chunk: string | Uint8Array) => void) => Promise<T>, mode?: number): Promise<T> {
  const partial = join(dirname(path), `.${basename(path)}.${process.pid}.partial`);
  // One left by an earlier process of the same id would keep its own mode: never reused.
  rmSync(partial, { force: true });
  const fd = openSync(partial, 'wx', mode);
  let open = true;
  let buffered: string[] = [];
  let size = 0;
  const flush = () => {
    if (buffered.length > 0) writeSync(fd, buffered.join(''));
    buffered = [];
    size = 0;
  };
  try {
    const result = await fill((chunk) => {
      if (typeof chunk !== 'string') {
        // Bytes go as they are, after the text before them.
        flush();
        writeSync(fd, chunk);
        return;
      }
      buffered.push(chunk);
      size += chunk.length;
      if (size >= FLUSH_BYTES) flush();
    });
    flush();
    fsyncSync(fd);
    closeSync(fd);
    open = false;
    renameSync(partial, path);
    return result;
  } catch (error) {
    if (open) closeSync(fd);
    rmSync(partial, { force: true });
    throw error;
  }
}

/** `data` as the file `path`, whole or not at all (writeWholeAsItGoes). */
export function writeWhole(path: string, data: string | Uint8Array, mode?: number): Promise<void> {
  return writeWholeAsItGoes(
    path,
    async (write) => {
      write(data);
    },
    mode,
  );
}
