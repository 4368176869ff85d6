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
        if (line[i] === '"' && line[i + 1] === '"') {
          value += '"';
          i += 2;
        } else if (line[i] === '"') {
          i++;
          break;
        } else value += line[i++];
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

function lines(path: string, source?: Readable): AsyncIterable<string> {
  let stream: Readable = source ?? createReadStream(path);
  if (path.endsWith('.gz')) stream = stream.pipe(createGunzip());
  return createInterface({ input: stream, crlfDelay: Infinity });
}

export interface BmfRow {
  /** 1-based line number in the file (the header is line 1). */
  line: number;
  record: BmfRecord;
  header: readonly string[];
  /** How many fields the line had: a line with more or fewer than the header is broken. */
  field_count: number;
}

/** Yields each data line as a record named by the header. `source` may be a stream of the file already open. */
export async function* readBmf(path: string, source?: Readable): AsyncGenerator<BmfRow> {
  let header: string[] | undefined;
  let line = 0;
  for await (const text of lines(path, source)) {
    line++;
    if (header === undefined) {
      header = parseCsvLine(text.replace(/^\uFEFF/, ''));
      continue;
    }
    if (text === '') continue;
    const values = parseCsvLine(text);
    const record: BmfRecord = {};
    header.forEach((name, i) => {
      record[name] = values[i] ?? '';
    });
    yield { line, record, header, field_count: values.length };
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
  if (state !== '' && !/^[A-Z]{2}$/.test(state)) return { reject: `STATE ${JSON.stringify(state)} is not a two-letter code` };
  if (zip !== '' && !/^\d{5}(-\d{4})?$/.test(zip)) return { reject: `ZIP ${JSON.stringify(zip)} is not NNNNN or NNNNN-NNNN` };
  const centroid = zips.get(zip.slice(0, 5));
  const ntee = (r.NTEE_CD ?? '').trim();
  const income = Number(r.INCOME_AMT || '0');
  const assets = Number(r.ASSET_AMT || '0');
  const revenue = Number(r.REVENUE_AMT || '0');
  const code = (field: string, pattern: RegExp) => {
    const value = (r[field] ?? '').trim();
    return pattern.test(value) ? value : '';
  };
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
    asset_amt: Number.isSafeInteger(assets) && assets > 0 ? assets : 0,
    tax_period: /^\d{6}$/.test(r.TAX_PERIOD ?? '') ? (r.TAX_PERIOD as string) : '',
    street: (r.STREET ?? '').trim().replace(/\s+/g, ' '),
    ruling: code('RULING', /^\d{6}$/),
    subsection: code('SUBSECTION', /^\d{2}$/),
    foundation: code('FOUNDATION', /^\d{2}$/),
    affiliation: code('AFFILIATION', /^\d$/),
    organization: code('ORGANIZATION', /^\d$/),
    filing_req: code('FILING_REQ_CD', /^\d{2}$/),
    deductibility: code('DEDUCTIBILITY', /^\d$/),
    status: code('STATUS', /^\d{2}$/),
    revenue_amt: Number.isSafeInteger(revenue) && revenue > 0 ? revenue : 0,
  };
}
