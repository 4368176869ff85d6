// Files written for something else to pick up (a message for a mail pickup, a bank file for an
// upload, letters): whole or not at all.
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Writes `path` whole or not at all: under a hidden name beside it (`.NAME.PID.partial`), then
 * renamed into place. Whatever reads the folder never finds a file begun and not finished, nor one
 * emptied while it is written again; `mode` holds for the file written even where one of that name
 * was there before (writeFileSync's mode applies only to a file it creates).
 */
export function writeWhole(path: string, data: string | Uint8Array, mode?: number): void {
  const partial = join(dirname(path), `.${basename(path)}.${process.pid}.partial`);
  try {
    writeFileSync(partial, data, mode === undefined ? {} : { mode });
    renameSync(partial, path);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
}
