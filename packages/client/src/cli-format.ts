// What alms prints and how it reads its arguments: dollars, tables, whole numbers, and the error
// that means "wrong arguments, nothing was sent" (exit 2).

export class UsageError extends Error {}

export const usd = (dollars: number) => dollars.toLocaleString('en-US', { style: 'currency', currency: 'USD' });

/** Rows as aligned columns under a header; numbers (money) to the right. */
export function table(headers: string[], rows: Array<Array<string | number>>, bold: (s: string) => string): string {
  const cells = rows.map((r) => r.map((c) => String(c)));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)));
  const right = headers.map((_, i) => rows.length > 0 && rows.every((r) => typeof r[i] === 'number' || /^-?\$[\d,.]+$/.test(String(r[i]))));
  const line = (r: string[]) =>
    r
      .map((c, i) => (right[i] ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [bold(line(headers)), ...cells.map(line)].join('\n');
}

export function dollars(text: string | undefined, flag: string): number {
  if (text === undefined || !/^\d{1,8}(\.\d{1,2})?$/.test(text)) throw new UsageError(`${flag} must be an amount in dollars, like 25 or 25.50`);
  return Number(text);
}

/** A command's positional arguments: exactly `n` of them (`what` says which), else a usage error. */
export function takesArgs(rest: readonly string[], n: number, command: string, what: string): void {
  if (rest.length !== n) throw new UsageError(`${command} takes ${n === 0 ? 'no arguments' : what}`);
}

/** --ein as typed (53-0196605 or 530196605): the nine digits, else a usage error. */
export function einArg(text: string | undefined): string {
  if (text === undefined || !/^\d{2}-?\d{7}$/.test(text)) throw new UsageError('--ein must be an EIN, like 53-0196605');
  return text.replace('-', '');
}

export function positive(text: string | undefined, what: string): number {
  if (text === undefined || !/^[1-9]\d{0,14}$/.test(text)) throw new UsageError(`${what} must be a positive whole number`);
  return Number(text);
}

/** A page of a list as a table, with how many there are in all and which page this is. */
export const listOf =
  <T>(headers: string[], row: (x: T) => Array<string | number>, bold: (s: string) => string) =>
  (a: { items: T[]; meta: { count: number; page: number; last: number } }) =>
    `${table(headers, a.items.map(row), bold)}\n${a.meta.count} in all; page ${a.meta.page} of ${a.meta.last}`;
