// Pure rules of the sponsor's due diligence (docs/rules.md §16): reading the
// three published lists, and the one rule that compares an organisation's name
// with a name on the sanctions list.
import { parse } from 'csv-parse/sync';
import { isCalendarDay } from '../../shared/days.ts';

export const LIST_KINDS = ['revocations', 'pub78', 'sdn'] as const;
export type ListKind = (typeof LIST_KINDS)[number];

/** What each list is, in words (the charity page, the CLI). */
export const LIST_NAMES: Readonly<Record<ListKind, string>> = {
  revocations: 'IRS automatic revocation of exemption list',
  pub78: 'IRS Publication 78 data',
  sdn: 'OFAC Specially Designated Nationals (SDN) list',
};

export interface Revocation {
  ein: string;
  name: string;
  revoked_on: string;
  reinstated_on: string | null;
}

export interface Pub78Entry {
  ein: string;
  name: string;
  codes: string;
}

export interface SanctionEntry {
  entry: number;
  name: string;
  name_key: string;
  kind: string;
  program: string;
}

/** A line the reader refused: the whole file is refused with it. */
export interface BadLine {
  line: number;
  reason: string;
}

export type Parsed<T> = { ok: true; entries: T[] } | { ok: false; bad: BadLine[] };

const MONTHS: Readonly<Record<string, string>> = {
  JAN: '01',
  FEB: '02',
  MAR: '03',
  APR: '04',
  MAY: '05',
  JUN: '06',
  JUL: '07',
  AUG: '08',
  SEP: '09',
  OCT: '10',
  NOV: '11',
  DEC: '12',
};

/** The IRS lists' dates, `15-MAY-2010`, as YYYY-MM-DD; null for anything else. */
export function irsDate(text: string): string | null {
  const match = /^(\d{2})-([A-Z]{3})-(\d{4})$/.exec(text.trim().toUpperCase());
  const month = match === null ? undefined : MONTHS[match[2] as string];
  if (match === null || month === undefined) return null;
  const iso = `${match[3]}-${month}-${match[1]}`;
  return isCalendarDay(iso) ? iso : null;
}

const EOF = String.fromCharCode(0x1a);

/** The text without the end-of-file byte (0x1A) some published files still end with. */
function withoutEndOfFile(text: string): string {
  const end = text.trimEnd();
  return end.endsWith(EOF) ? end.slice(0, -1) : text;
}

/** The lines of a text file, without their ends; blank lines and a trailing end-of-file mark dropped, each with its number. */
function linesOf(text: string): Array<{ line: number; text: string }> {
  return text
    .split(/\r?\n/)
    .map((t, i) => ({ line: i + 1, text: t }))
    .filter((l) => l.text.trim() !== '' && l.text !== EOF);
}

const MAX_BAD = 20;

function collect<T>(lines: Array<{ line: number; text: string }>, read: (fields: string[]) => T | string, fieldCount: number): Parsed<T> {
  const entries: T[] = [];
  const bad: BadLine[] = [];
  for (const { line, text } of lines) {
    const fields = text.split('|');
    const out = fields.length !== fieldCount ? `${fields.length} fields separated by |, not ${fieldCount}` : read(fields.map((f) => f.trim()));
    if (typeof out === 'string') {
      if (bad.length < MAX_BAD) bad.push({ line, reason: out });
      else break;
    } else entries.push(out);
  }
  if (bad.length > 0) return { ok: false, bad };
  if (entries.length === 0) return { ok: false, bad: [{ line: 1, reason: 'the file holds no entries' }] };
  return { ok: true, entries };
}

/**
 * The IRS auto-revocation list, as published (pipe-delimited, no header): EIN | legal name | doing
 * business as | address | city | state | ZIP | country | exemption type | revocation date |
 * revocation posting date | exemption reinstatement date (empty when not reinstated).
 */
export function readRevocations(text: string): Parsed<Revocation> {
  return collect(
    linesOf(text),
    (f) => {
      const [ein = '', name = '', , , , , , , , revoked = '', , reinstated = ''] = f;
      if (!/^\d{9}$/.test(ein)) return `the EIN ${JSON.stringify(ein)} is not nine digits`;
      const revokedOn = irsDate(revoked);
      if (revokedOn === null) return `the revocation date ${JSON.stringify(revoked)} is not a date like 15-MAY-2010`;
      const reinstatedOn = reinstated === '' ? null : irsDate(reinstated);
      if (reinstated !== '' && reinstatedOn === null) return `the reinstatement date ${JSON.stringify(reinstated)} is not a date like 15-MAY-2010`;
      return { ein, name, revoked_on: revokedOn, reinstated_on: reinstatedOn };
    },
    12,
  );
}

/** Publication 78 data, as published (pipe-delimited, no header): EIN | legal name | city | state | country | deductibility status codes. */
export function readPub78(text: string): Parsed<Pub78Entry> {
  return collect(
    linesOf(text),
    (f) => {
      const [ein = '', name = '', , , , codes = ''] = f;
      if (!/^\d{9}$/.test(ein)) return `the EIN ${JSON.stringify(ein)} is not nine digits`;
      const normal = codes.toUpperCase().replace(/\s+/g, '');
      if (!/^[A-Z]{2,6}(,[A-Z]{2,6})*$/.test(normal)) return `the deductibility status ${JSON.stringify(codes)} is not a list of codes like PC or PC,LODGE`;
      return { ein, name, codes: normal };
    },
    6,
  );
}

/** Publication 78's codes that mean a donor-advised fund may not grant to the organisation. */
export function pub78Refusal(codes: string): 'private_foundation' | 'supporting_organization' | undefined {
  const list = codes.split(',');
  if (list.includes('PF')) return 'private_foundation';
  if (list.includes('SONFI')) return 'supporting_organization';
  return undefined;
}

/**
 * The OFAC SDN list, as published (`sdn.csv`: no header; ent_num, SDN_Name, SDN_Type, Program,
 * Title, Call_Sign, Vess_type, Tonnage, GRT, Vess_flag, Vess_owner, Remarks; `-0-` for none).
 */
export function readSdn(text: string): Parsed<SanctionEntry> {
  let rows: string[][];
  try {
    rows = parse(withoutEndOfFile(text), { relax_column_count: true, skip_empty_lines: true, trim: true }) as string[][];
  } catch (error) {
    return { ok: false, bad: [{ line: (error as { lines?: number }).lines ?? 1, reason: `not CSV as the SDN list is published: ${(error as Error).message}` }] };
  }
  const entries: SanctionEntry[] = [];
  const bad: BadLine[] = [];
  rows.forEach((row, i) => {
    const [entry = '', name = '', type = '', program = ''] = row;
    let reason: string | undefined;
    if (row.length !== 12) reason = `${row.length} columns, not 12`;
    else if (!/^\d{1,9}$/.test(entry)) reason = `the entry number ${JSON.stringify(entry)} is not a number`;
    else if (name === '' || name === '-0-') reason = 'the entry has no name';
    if (reason !== undefined) {
      if (bad.length < MAX_BAD) bad.push({ line: i + 1, reason });
      return;
    }
    entries.push({
      entry: Number(entry),
      name,
      name_key: nameKey(name),
      kind: type === '-0-' || type === '' ? 'entity' : type.toLowerCase(),
      program: program === '-0-' ? '' : program,
    });
  });
  if (bad.length > 0) return { ok: false, bad };
  if (entries.length === 0) return { ok: false, bad: [{ line: 1, reason: 'the file holds no entries' }] };
  return { ok: true, entries };
}

/** Words that say what kind of legal body a name is, not which one: left out when names are compared. */
const LEGAL_WORDS = new Set(['THE', 'INC', 'INCORPORATED', 'LLC', 'LTD', 'LIMITED', 'CORP', 'CORPORATION', 'CO', 'COMPANY', 'PLC', 'SA', 'AG', 'GMBH']);

/**
 * A name as the matching rule compares it: accents dropped, capitals, `&` read as AND, anything
 * but letters and digits a space, the legal-form words left out, single spaces.
 */
export function nameKey(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase()
    .replace(/&/g, ' AND ')
    .replace(/[^A-Z0-9]+/g, ' ')
    .split(' ')
    .filter((w) => w !== '' && !LEGAL_WORDS.has(w))
    .join(' ');
}

/** Levenshtein distance (insertions, deletions, substitutions), in two rows. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/** How near two names must be spelled, as 1 - distance / the longer length, for a close match. */
export const CLOSE_SPELLING = 0.9;

/**
 * How an organisation's name (`key`, a nameKey) compares with a listed one: `exact` (the same key:
 * refused), a reason for a close match (an operator reviews it), or undefined (no match). Close is:
 * the same words in another order; spelled nearly the same (at least CLOSE_SPELLING, both keys of 8
 * characters or more); or the listed name, of two words or more, whole inside the organisation's.
 */
export function compareNames(key: string, listedKey: string): 'exact' | string | undefined {
  if (key === '' || listedKey === '') return undefined;
  if (key === listedKey) return 'exact';
  const words = key.split(' ');
  const listed = listedKey.split(' ');
  if (words.length === listed.length && [...words].sort().join(' ') === [...listed].sort().join(' ')) return 'the same words in another order';
  const longer = Math.max(key.length, listedKey.length);
  if (Math.min(key.length, listedKey.length) >= 8 && Math.abs(key.length - listedKey.length) <= longer * (1 - CLOSE_SPELLING)) {
    const similarity = 1 - editDistance(key, listedKey) / longer;
    if (similarity >= CLOSE_SPELLING) return `spelled nearly the same (${Math.floor(similarity * 100)}% alike)`;
  }
  if (listed.length >= 2 && ` ${key} `.includes(` ${listedKey} `)) return 'the listed name is part of its name';
  return undefined;
}

/** Words of a key worth looking names up by: three letters or more. */
export function lookupWords(key: string): string[] {
  return [...new Set(key.split(' ').filter((w) => w.length >= 3))];
}
