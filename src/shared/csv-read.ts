// Reading a CSV file an operator brings (prices, a bank's paid checks): a
// header naming its columns in any order and case (others ignored), rows
// numbered by their line in the file. A file that cannot be read, lists
// nothing, or lacks a named column is one problem at its line.
import { parse } from 'csv-parse/sync';

export interface LineProblem {
  line: number;
  reason: string;
}

/** The rows of `text` by the columns it must name, each with its line (the header is line 1); `empty` says a file of no rows. */
export function readNamedCsv<C extends string>(
  text: string,
  columns: readonly C[],
  empty: string,
): { ok: true; rows: Array<{ line: number; values: Record<C, string> }> } | { ok: false; problems: LineProblem[] } {
  let records: Array<Record<string, string>>;
  try {
    records = parse(text, { columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()), skip_empty_lines: true, trim: true, bom: true });
  } catch (error) {
    return { ok: false, problems: [{ line: Number((error as { lines?: number }).lines ?? 1), reason: (error as Error).message }] };
  }
  const first = records[0];
  if (first === undefined) return { ok: false, problems: [{ line: 1, reason: empty }] };
  const missing = columns.filter((c) => !(c in first));
  if (missing.length > 0) return { ok: false, problems: [{ line: 1, reason: `the header lacks ${missing.join(', ')}` }] };
  return {
    ok: true,
    rows: records.map((r, i) => ({ line: i + 2, values: Object.fromEntries(columns.map((c) => [c, r[c] ?? ''])) as Record<C, string> })),
  };
}
