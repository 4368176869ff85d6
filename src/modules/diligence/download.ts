// `almoner nonprofits download` (docs/rules.md §16): the IRS master files and
// the three due diligence lists fetched from their official addresses into a
// folder, the IRS's zip files unpacked (fflate, ADR 20), each file checked as
// it arrives, for `almoner nonprofits import` to read. On a machine without
// the internet it fails naming the address it could not reach; an operator
// then downloads the files elsewhere and copies them over.
import { mkdirSync } from 'node:fs';
import { writeWhole } from '../../shared/files.ts';
import { dirname, join } from 'node:path';
import { unzipSync } from 'fflate';

export interface Download {
  /** The file written in the folder: the IRS's under bmf/, the lists under lists/ (so that a folder import reads only the former). */
  file: string;
  url: string;
  /** A zip holding the file: the entry whose name ends so. */
  unzip?: string;
  what: string;
}

/** Where each file is published (as of 2026): the IRS's Exempt Organizations files and OFAC's SDN list. */
export const OFFICIAL_DOWNLOADS: readonly Download[] = [
  ...[1, 2, 3, 4].map((region) => ({ file: `bmf/eo${region}.csv`, url: `https://www.irs.gov/pub/irs-soi/eo${region}.csv`, what: `IRS EO BMF, region ${region}` })),
  { file: 'lists/revocations.txt', url: 'https://apps.irs.gov/pub/epostcard/data-download-revocation.zip', unzip: '.txt', what: 'IRS automatic revocation of exemption list' },
  { file: 'lists/pub78.txt', url: 'https://apps.irs.gov/pub/epostcard/data-download-pub78.zip', unzip: '.txt', what: 'IRS Publication 78 data' },
  { file: 'lists/sdn.csv', url: 'https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/SDN.CSV', what: 'OFAC SDN list' },
];

/**
 * Fetches every download into `dir` (each written whole or not at all: shared/files.ts). `rewrite` maps an official address to the one fetched (a mirror, a test's server).
 * Throws naming the address and what went wrong.
 */
export async function downloadAll(
  dir: string,
  options: { downloads?: readonly Download[]; rewrite?: (url: string) => string; onFile?: (d: Download, bytes: number) => void } = {},
): Promise<Array<{ file: string; bytes: number }>> {
  mkdirSync(dir, { recursive: true });
  const written: Array<{ file: string; bytes: number }> = [];
  for (const d of options.downloads ?? OFFICIAL_DOWNLOADS) {
    const url = options.rewrite?.(d.url) ?? d.url;
    let body: Uint8Array;
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(120_000) });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      body = new Uint8Array(await response.arrayBuffer());
    } catch (error) {
      throw new Error(`could not download the ${d.what} from ${url}: ${(error as Error).message}`, { cause: error });
    }
    if (d.unzip !== undefined) {
      let entries: Record<string, Uint8Array>;
      try {
        entries = unzipSync(body);
      } catch (error) {
        throw new Error(`the ${d.what} from ${url} is not a zip file: ${(error as Error).message}`, { cause: error });
      }
      const name = Object.keys(entries).find((n) => n.toLowerCase().endsWith(d.unzip as string));
      if (name === undefined) throw new Error(`the ${d.what} from ${url} holds no ${d.unzip} file`);
      body = entries[name] as Uint8Array;
    }
    if (body.length === 0) throw new Error(`the ${d.what} from ${url} is empty`);
    const target = join(dir, d.file);
    mkdirSync(dirname(target), { recursive: true });
    await writeWhole(target, body);
    written.push({ file: target, bytes: body.length });
    options.onFile?.(d, body.length);
  }
  return written;
}
