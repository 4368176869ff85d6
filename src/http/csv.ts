// CSV answers (rules §13: `Accept: text/csv` on the donation and contribution
// lists): every row matching the filters, streamed through csv-stringify as
// the rows are read, so memory stays bounded whatever their number. Cells that
// a spreadsheet would run as a formula (starting with = + - @, a tab or a
// carriage return) are prefixed with a quote: they open as text. So is every
// formula start inside a cell that follows ';', a tab or a new line: a
// spreadsheet that splits cells on ';' (Excel in many locales) or tabs, or reads
// lines without our quotes, would otherwise start a cell there.
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../shared/errors.ts';
import type { RowFilters } from '../shared/page.ts';
import { isCalendarDay } from '../shared/days.ts';

/** True when the request asks for CSV. */
export function wantsCsv(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').split(',').some((part) => part.trim().toLowerCase().startsWith('text/csv'));
}

/** A cell as text that no spreadsheet runs as a formula, whichever character it splits cells on. */
export function neutralise(value: unknown): string {
  const text = value === null || value === undefined ? '' : String(value);
  const inside = text.replace(/([;\t\r\n] *)(?=[=+\-@]|" *[=+\-@])/g, "$1'");
  return /^[=+\-@\t\r]/.test(inside) ? `'${inside}` : inside;
}

/** Streams `rows` as CSV with `header` first, as an attachment named `filename`. */
export function sendCsv(reply: FastifyReply, filename: string, header: readonly string[], rows: AsyncIterable<readonly unknown[]>): FastifyReply {
  const csv = stringify({
    header: true,
    columns: [...header],
    quoted_match: /[;\t]/,
    cast: { number: (n) => String(n), boolean: (b) => (b ? 'true' : 'false') },
  });
  const source = Readable.from(
    (async function* () {
      for await (const row of rows) yield row.map(neutralise);
    })(),
    { objectMode: true },
  );
  source.on('error', (error) => csv.destroy(error));
  source.pipe(csv);
  return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${filename}"`).send(csv);
}

/** `from`, `to` (YYYY-MM-DD, inclusive, on the creation date) and `status` of a CSV export. Throws invalid_parameter. */
export function exportFilters(query: Record<string, unknown>, statuses: readonly string[]): RowFilters {
  const out: RowFilters = {};
  for (const name of ['from', 'to'] as const) {
    const v = query[name];
    if (v === undefined) continue;
    if (typeof v !== 'string' || !isCalendarDay(v)) throw new AppError('bad_request', 'invalid_parameter', `${name} must be a date, YYYY-MM-DD`);
    out[name] = v;
  }
  const status = query.status;
  if (status !== undefined) {
    if (typeof status !== 'string' || !statuses.includes(status)) throw new AppError('bad_request', 'invalid_parameter', `status must be one of ${statuses.join(', ')}`);
    out.status = status;
  }
  return out;
}
