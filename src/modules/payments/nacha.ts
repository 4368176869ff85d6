// A NACHA ACH file of credits (docs/rules.md §17, ADR 20): one batch of CCD
// entries, each with one addenda record (CCD+) naming the grants it pays.
// Fixed-width records of 94 characters, blocked by 10 (the last block filled
// with lines of 9s). Written from the NACHA Operating Rules' record layouts.
import type { AchSettings } from '../../config.sponsor.ts';

/** Who sends the file: the sponsor's settings (config.sponsor.ts). */
export type Originator = AchSettings;

export interface Credit {
  /** The receiving bank's routing number, 9 digits (checksum valid). */
  routing: string;
  account: string;
  accountType: 'checking' | 'savings';
  amountCents: number;
  /** What the receiver sees as the payer's reference for it (15 characters at most): the payment id. */
  reference: string;
  receiver: string;
  /** The addenda's payment-related information (80 characters at most): the grants. */
  remittance: string;
  /** The entry's trace sequence (7 digits after the ODFI's 8): unique across files, the payment id. */
  trace: number;
}

/** A routing number's check digit is right: 3, 7 and 1 times its digits, in turn, sum to a multiple of 10. */
export function isRoutingNumber(text: string): boolean {
  if (!/^\d{9}$/.test(text)) return false;
  const d = [...text].map(Number);
  const sum =
    3 * ((d[0] as number) + (d[3] as number) + (d[6] as number)) +
    7 * ((d[1] as number) + (d[4] as number) + (d[7] as number)) +
    ((d[2] as number) + (d[5] as number) + (d[8] as number));
  return sum % 10 === 0;
}

/** Characters a NACHA alphanumeric field may hold: upper-case ASCII letters, digits, space and common punctuation. */
function alpha(text: string, width: number): string {
  const ascii = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase()
    .replace(/[^A-Z0-9 .,&'/()*+-]/g, ' ');
  return ascii.slice(0, width).padEnd(width, ' ');
}

function numeric(value: number | string, width: number): string {
  const text = String(value);
  if (!/^\d+$/.test(text) || text.length > width) throw new Error(`${text} does not fit a numeric field of ${width}`);
  return text.padStart(width, '0');
}

function record(...fields: string[]): string {
  const line = fields.join('');
  if (line.length !== 94) throw new Error(`a NACHA record is 94 characters, this one ${line.length}: ${line}`);
  return line;
}

/** YYMMDD of an ISO date. */
function yymmdd(isoDate: string): string {
  return isoDate.slice(2, 4) + isoDate.slice(5, 7) + isoDate.slice(8, 10);
}

/** The settings an originator must have, named as the configuration names them, that are missing or malformed. */
export function originatorProblems(o: Originator): string[] {
  const problems: string[] = [];
  if (!isRoutingNumber(o.destinationRouting)) problems.push('ACH_DESTINATION_ROUTING (a 9-digit routing number)');
  if (!isRoutingNumber(o.odfiRouting)) problems.push('ACH_ODFI_ROUTING (a 9-digit routing number)');
  if (!/^[0-9A-Za-z ]{10}$/.test(o.originId)) problems.push('ACH_ORIGIN_ID (10 letters or digits)');
  if (!/^[0-9A-Za-z ]{10}$/.test(o.companyId)) problems.push('ACH_COMPANY_ID (10 letters or digits)');
  if (o.destinationName.trim() === '') problems.push('ACH_DESTINATION_NAME');
  if (o.originName.trim() === '') problems.push('ACH_ORIGIN_NAME');
  if (o.companyName.trim() === '') problems.push('ACH_COMPANY_NAME');
  return problems;
}

/**
 * The file's lines (each 94 characters, CRLF between them as banks expect): a file header, one
 * CCD batch of credits with an addenda each, the controls, and lines of 9s to a multiple of 10.
 * `createdAt` is when the file is made (ISO); `effectiveDate` the day the credits settle (YYYY-MM-DD).
 */
/** The File ID Modifiers of the files one originator sends a bank in a day, in order: A-Z, then 0-9. */
export const FILE_ID_MODIFIERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/**
 * A NACHA file of CCD credits. `fileOfDay` (0-based) picks its File ID Modifier, so that two files
 * made the same day are not taken for duplicates; each entry's trace number ends in its own
 * `trace`, unique across files.
 */
export function achFile(o: Originator, credits: readonly Credit[], createdAt: string, effectiveDate: string, batchNumber = 1, fileOfDay = 0): string {
  const modifier = FILE_ID_MODIFIERS[fileOfDay];
  if (modifier === undefined) throw new Error(`at most ${FILE_ID_MODIFIERS.length} files a day: this would be file ${fileOfDay + 1}`);
  const odfi = o.odfiRouting.slice(0, 8);
  const lines: string[] = [];
  lines.push(
    record(
      '1',
      '01',
      ` ${o.destinationRouting}`,
      alpha(o.originId, 10),
      yymmdd(createdAt),
      createdAt.slice(11, 13) + createdAt.slice(14, 16),
      modifier,
      '094',
      '10',
      '1',
      alpha(o.destinationName, 23),
      alpha(o.originName, 23),
      ' '.repeat(8),
    ),
  );
  lines.push(
    record(
      '5',
      '220',
      alpha(o.companyName, 16),
      ' '.repeat(20),
      alpha(o.companyId, 10),
      'CCD',
      alpha('GRANTS', 10),
      yymmdd(effectiveDate),
      yymmdd(effectiveDate),
      '   ',
      '1',
      odfi,
      numeric(batchNumber, 7),
    ),
  );
  let hash = 0;
  let total = 0;
  credits.forEach((c) => {
    if (!isRoutingNumber(c.routing)) throw new Error(`${c.routing} is not a routing number`);
    if (!Number.isSafeInteger(c.amountCents) || c.amountCents <= 0 || c.amountCents > 99_999_999_99) throw new Error(`an ACH entry of ${c.amountCents} cents`);
    if (!Number.isSafeInteger(c.trace) || c.trace < 1 || c.trace > 9_999_999) throw new Error(`a trace sequence of ${c.trace}`);
    const sequence = numeric(c.trace, 7);
    hash += Number(c.routing.slice(0, 8));
    total += c.amountCents;
    lines.push(
      record(
        '6',
        c.accountType === 'savings' ? '32' : '22',
        c.routing.slice(0, 8),
        c.routing.slice(8),
        alpha(c.account, 17),
        numeric(c.amountCents, 10),
        alpha(c.reference, 15),
        alpha(c.receiver, 22),
        '  ',
        '1',
        odfi + sequence,
      ),
    );
    lines.push(record('7', '05', alpha(c.remittance, 80), '0001', sequence));
  });
  const entryHash = numeric(hash % 10_000_000_000, 10);
  const count = credits.length * 2;
  lines.push(
    record('8', '220', numeric(count, 6), entryHash, numeric(0, 12), numeric(total, 12), alpha(o.companyId, 10), ' '.repeat(19), ' '.repeat(6), odfi, numeric(batchNumber, 7)),
  );
  const blocks = Math.ceil((lines.length + 1) / 10);
  lines.push(record('9', numeric(1, 6), numeric(blocks, 6), numeric(count, 8), entryHash, numeric(0, 12), numeric(total, 12), ' '.repeat(39)));
  while (lines.length % 10 !== 0) lines.push('9'.repeat(94));
  return `${lines.join('\r\n')}\r\n`;
}

/** An entry a bank returned: the payment it was (our reference, `PAYMENT <id>`), the return code, the amount. */
export interface ReturnedEntry {
  line: number;
  paymentId: number;
  code: string;
  amountCents: number;
}

/** A notification of change (COR): the payment it is about, its change code (C01...) and the corrected data (addenda positions 36-64). */
export interface ChangeEntry {
  line: number;
  paymentId: number;
  code: string;
  corrected: string;
}

/**
 * Reads a NACHA return file as banks send it: each returned entry is an entry detail record (6)
 * carrying the original's amount and individual identification (`PAYMENT <id>`, as achFile wrote
 * it), followed by its return addenda (7, type 99) with the return reason code; a notification
 * of change is an entry followed by an addenda of type 98 with its change code and the corrected
 * data. Every record must be 94 characters; anything else in the file is refused with its line.
 */
export function readAchReturns(text: string): { ok: true; entries: ReturnedEntry[]; changes: ChangeEntry[] } | { ok: false; bad: Array<{ line: number; reason: string }> } {
  const lines = text.split(/\r?\n/);
  const bad: Array<{ line: number; reason: string }> = [];
  const entries: ReturnedEntry[] = [];
  const changes: ChangeEntry[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const record = lines[i] as string;
    if (record === '') continue;
    if (record.length !== 94) {
      bad.push({ line: i + 1, reason: `a record of ${record.length} characters, not 94` });
      continue;
    }
    if (record[0] !== '6') continue;
    const addenda = lines[i + 1] ?? '';
    const reference = /^PAYMENT (\d{1,12})$/.exec(record.slice(39, 54).trim());
    const type = addenda.slice(0, 3);
    if (addenda.length !== 94 || (type !== '799' && type !== '798'))
      bad.push({ line: i + 1, reason: 'an entry without its return addenda (7, type 99) or notification of change (7, type 98) after it' });
    else if (reference === null)
      bad.push({ line: i + 1, reason: `the entry's reference ${JSON.stringify(record.slice(39, 54).trim())} is not one of our payments (PAYMENT <id>)` });
    else if (type === '798') {
      if (!/^C\d{2}$/.test(addenda.slice(3, 6))) bad.push({ line: i + 2, reason: `the change code ${JSON.stringify(addenda.slice(3, 6))} is not one` });
      else changes.push({ line: i + 1, paymentId: Number(reference[1]), code: addenda.slice(3, 6), corrected: addenda.slice(35, 64) });
    } else if (!/^R\d{2}$/.test(addenda.slice(3, 6))) bad.push({ line: i + 2, reason: `the return code ${JSON.stringify(addenda.slice(3, 6))} is not one` });
    else if (!/^\d{10}$/.test(record.slice(29, 39))) bad.push({ line: i + 1, reason: 'the amount is not 10 digits' });
    else entries.push({ line: i + 1, paymentId: Number(reference[1]), code: addenda.slice(3, 6), amountCents: Number(record.slice(29, 39)) });
  }
  if (bad.length === 0 && entries.length === 0 && changes.length === 0) bad.push({ line: 1, reason: 'the file holds no returned entry and no notification of change' });
  return bad.length > 0 ? { ok: false, bad: bad.slice(0, 20) } : { ok: true, entries, changes };
}
