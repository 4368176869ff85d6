// Rebuilds src/demo/nonprofits.csv and src/demo/zips.csv from the IRS BMF
// files: for a handful of states, the largest eligible organisations with an
// NTEE code, plus a few ineligible ones. Rows are copied unchanged, so the
// demo goes through the same reader as a full import. Deterministic.
//   node scripts/extract-demo-nonprofits.ts ../shared/data/nonprofits
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readBmf, type BmfRecord } from '../src/modules/nonprofits/bmf.ts';
import { isEligible } from '../src/modules/nonprofits/nonprofits.ts';

const dir = process.argv[2] ?? '../shared/data/nonprofits';
const STATES = ['vt', 'dc', 'ri', 'nm', 'hi'];
const PER_STATE = 60;
const INELIGIBLE_PER_STATE = 3;
const COLUMNS =
  'EIN,NAME,ICO,STREET,CITY,STATE,ZIP,GROUP,SUBSECTION,AFFILIATION,CLASSIFICATION,RULING,DEDUCTIBILITY,FOUNDATION,ACTIVITY,ORGANIZATION,STATUS,TAX_PERIOD,ASSET_CD,INCOME_CD,FILING_REQ_CD,PF_FILING_REQ_CD,ACCT_PD,ASSET_AMT,INCOME_AMT,REVENUE_AMT,NTEE_CD,SORT_NAME'.split(
    ',',
  );

const csvField = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
const income = (r: BmfRecord) => Number(r.INCOME_AMT || '0');
const byIncome = (a: BmfRecord, b: BmfRecord) => income(b) - income(a) || (a.EIN ?? '').localeCompare(b.EIN ?? '');

/**
 * Organisations donors search for first (the Red Cross, Save the Children, Habitat for Humanity,
 * the United Way...), where the shipped extract holds them: the national body where it is in a
 * shipped state, else the largest affiliate of that name. Their states' files are read for them only.
 */
const FAMOUS: Record<string, string[]> = {
  ct: ['060726487'], // Save the Children Federation
  or: ['911148123', '930386840'], // Mercy Corps; Goodwill Industries of the Columbia Willamette
  ne: ['363283625'], // Habitat for Humanity International (Omaha)
  al: ['630288846'], // United Way of Central Alabama
  ky: ['611043635'], // Feeding America, Kentucky's Heartland
  ok: ['731176743'], // Make-A-Wish Foundation of Oklahoma
  la: ['720717944'], // American Civil Liberties Union Foundation of Louisiana
};

const chosen: BmfRecord[] = [];
for (const [state, eins] of Object.entries(FAMOUS)) {
  const found = new Map<string, BmfRecord>();
  for await (const { record } of readBmf(join(dir, 'bmf', `eo_${state}.csv.gz`))) if (eins.includes(record.EIN ?? '')) found.set(record.EIN ?? '', record);
  for (const ein of eins) {
    const record = found.get(ein);
    if (record === undefined) throw new Error(`${ein} is not in eo_${state}.csv.gz`);
    chosen.push(record);
  }
}
for (const state of STATES) {
  const eligible: BmfRecord[] = [];
  const ineligible: BmfRecord[] = [];
  for await (const { record } of readBmf(join(dir, 'bmf', `eo_${state}.csv.gz`))) {
    if ((record.NTEE_CD ?? '') === '') continue;
    (isEligible(record.DEDUCTIBILITY ?? '', record.STATUS ?? '') ? eligible : ineligible).push(record);
  }
  chosen.push(...eligible.sort(byIncome).slice(0, PER_STATE), ...ineligible.sort(byIncome).slice(0, INELIGIBLE_PER_STATE));
}
const lines = [COLUMNS.join(','), ...chosen.map((r) => COLUMNS.map((c) => csvField(r[c] ?? '')).join(','))];
writeFileSync('src/demo/nonprofits.csv', `${lines.join('\r\n')}\r\n`);

const wanted = new Set(chosen.map((r) => (r.ZIP ?? '').slice(0, 5)));
const zipLines = ['ZIP5,LATITUDE,LONGITUDE'];
for await (const { record } of readBmf(join(dir, 'geo', 'zip_centroids_2021_zcta.csv.gz'))) {
  if (wanted.has(record.ZIP5 ?? '')) zipLines.push(`${record.ZIP5},${record.LATITUDE},${record.LONGITUDE}`);
}
writeFileSync('src/demo/zips.csv', `${zipLines.join('\n')}\n`);
console.log(`wrote ${chosen.length} organisations and ${zipLines.length - 1} ZIP centroids`);
