// A deterministic generator that grows the real IRS rows (374k in
// ../shared/data/nonprofits) to the national size (1.9M) for benchmarks.
// Each synthetic row starts from a real row drawn at random (so states,
// subsections, NTEE codes and sizes keep their real distributions) and gets
// a new EIN and a name recombined from real names: one word of the base
// name replaced by the word at the same place in another real name.
// Same seed, same files.
//   node bench/generate-directory.ts OUT_DIR [TOTAL] [SEED]
import { mkdirSync, createWriteStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { readBmf, type BmfRecord } from '../src/modules/nonprofits/bmf.ts';
import { bmfFiles } from '../src/modules/nonprofits/import.service.ts';

export const NATIONAL_SIZE = 1_900_000;
const COLUMNS =
  'EIN,NAME,ICO,STREET,CITY,STATE,ZIP,GROUP,SUBSECTION,AFFILIATION,CLASSIFICATION,RULING,DEDUCTIBILITY,FOUNDATION,ACTIVITY,ORGANIZATION,STATUS,TAX_PERIOD,ASSET_CD,INCOME_CD,FILING_REQ_CD,PF_FILING_REQ_CD,ACCT_PD,ASSET_AMT,INCOME_AMT,REVENUE_AMT,NTEE_CD,SORT_NAME'.split(
    ',',
  );

/** mulberry32: small, fast, and the same everywhere. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const csv = (v: string) => (/[",]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

export async function generateDirectory(sourceDir: string, outDir: string, total = NATIONAL_SIZE, seed = 1): Promise<string> {
  const done = join(outDir, `.complete-${total}-${seed}`);
  if (existsSync(done)) return outDir;
  mkdirSync(outDir, { recursive: true });
  const real: BmfRecord[] = [];
  for (const file of bmfFiles([sourceDir])) for await (const { record } of readBmf(file)) real.push(record);
  const eins = new Set(real.map((r) => r.EIN));
  const random = prng(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const out = createWriteStream(join(outDir, 'eo_national.csv'));
  out.write(`${COLUMNS.join(',')}\r\n`);
  let ein = 100_000_000;
  for (let i = 0; i < total; i++) {
    let row: BmfRecord;
    if (i < real.length) {
      row = real[i] as BmfRecord;
    } else {
      const base = pick(real);
      const words = (base.NAME ?? '').split(' ');
      const other = (pick(real).NAME ?? '').split(' ');
      const at = Math.floor(random() * words.length);
      if (other[at] !== undefined && words.length > 1) words[at] = other[at] as string;
      do ein += 1 + Math.floor(random() * 3);
      while (eins.has(String(ein).padStart(9, '0')));
      row = { ...base, EIN: String(ein).padStart(9, '0'), NAME: words.join(' ') };
    }
    if (!out.write(`${COLUMNS.map((c) => csv(row[c] ?? '')).join(',')}\r\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  createWriteStream(done).end();
  return outDir;
}

if (import.meta.main) {
  const [outDir, total, seed] = process.argv.slice(2);
  if (outDir === undefined) {
    process.stderr.write('usage: node bench/generate-directory.ts OUT_DIR [TOTAL] [SEED]\n');
    process.exit(2);
  }
  const started = Date.now();
  await generateDirectory(join(process.cwd(), '..', 'shared', 'data', 'nonprofits', 'bmf'), outDir, Number(total ?? NATIONAL_SIZE), Number(seed ?? 1));
  process.stdout.write(`generated in ${((Date.now() - started) / 1000).toFixed(1)} s into ${outDir}\n`);
}
