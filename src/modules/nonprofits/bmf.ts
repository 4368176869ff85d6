// Reading IRS EO BMF files (CSV, plain or gzipped) as a stream of records,
// and turning a record into a directory row.
import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { causeIdForNtee } from './causes.ts';
import { displayCity, displayName, isEligible, publicPath } from './nonprofits.ts';
import type { NonProfitInput } from './nonprofits.store.ts';

export type BmfRecord = Record<string, string>;

/** Splits one CSV line; fields may be quoted, with "" for a quote inside. */
export function parseCsvLine(line: string): string[] {
  const fields: string[] = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      let value = '';
      i++;
      while (i < line.length) {
        if (line[i] === '"' && line[i + 1] === '"') { value += '"'; i += 2; }
        else if (line[i] === '"') { i++; break; }
        else value += line[i++];
      }
      fields.push(value);
      i++; // the comma
    } else {
      const comma = line.indexOf(',', i);
      const end = comma === -1 ? line.length : comma;
      fields.push(line.slice(i, end));
      i = end + 1;
    }
  }
  return fields;
}

function lines(path: string): AsyncIterable<string> {
  let stream: Readable = createReadStream(path);
  if (path.endsWith('.gz')) stream = stream.pipe(createGunzip());
  return createInterface({ input: stream, crlfDelay: Infinity });
}

/** Yields each record with its 1-based line number; the header names the fields. */
export async function* readBmf(path: string): AsyncGenerator<{ line: number; record: BmfRecord }> {
  let header: string[] | undefined;
  let line = 0;
  for await (const text of lines(path)) {
    line++;
    if (header === undefined) {
      header = parseCsvLine(text);
      continue;
    }
    if (text === '') continue;
    const values = parseCsvLine(text);
    const record: BmfRecord = {};
    header.forEach((name, i) => { record[name] = values[i] ?? ''; });
    yield { line, record };
  }
}

export type ZipCentroids = Map<string, { latitude: number; longitude: number }>;

export async function readZipCentroids(path: string): Promise<ZipCentroids> {
  const map: ZipCentroids = new Map();
  for await (const { record } of readBmf(path)) {
    map.set(record.ZIP5 ?? '', { latitude: Number(record.LATITUDE), longitude: Number(record.LONGITUDE) });
  }
  return map;
}

/** A BMF record as a directory row; null with a reason when a field is unusable. */
export function toNonProfitInput(r: BmfRecord, zips: ZipCentroids): NonProfitInput | { reject: string } {
  const ein = r.EIN ?? '';
  if (!/^\d{9}$/.test(ein)) return { reject: `EIN ${JSON.stringify(ein)} is not 9 digits` };
  const rawName = (r.NAME ?? '').trim();
  if (rawName === '') return { reject: 'NAME is empty' };
  const name = displayName(rawName);
  const city = displayCity(r.CITY ?? '');
  const state = (r.STATE ?? '').trim();
  const zip = (r.ZIP ?? '').trim();
  const centroid = zips.get(zip.slice(0, 5));
  const ntee = (r.NTEE_CD ?? '').trim();
  const income = Number(r.INCOME_AMT || '0');
  return {
    ein,
    name,
    name_lower: name.toLowerCase(),
    website: null,
    city,
    state,
    zip,
    latitude: centroid?.latitude ?? null,
    longitude: centroid?.longitude ?? null,
    ntee_code: ntee === '' ? null : ntee,
    cause_id: causeIdForNtee(ntee),
    eligible: isEligible(r.DEDUCTIBILITY ?? '', r.STATUS ?? '') ? 1 : 0,
    slug: publicPath(ein, name, city, state),
    income_amt: Number.isSafeInteger(income) && income > 0 ? income : 0,
  };
}
