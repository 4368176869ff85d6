// Remittance advice (docs/rules.md §17): one printable letter per payment,
// telling the organisation what it is paid and for what: each grant with its
// donor as they chose (name and e-mail, name, or anonymous), its designation
// its dedication, and a checkout grant's tracking id. A run's remittances are its payments' letters in one file.
import type { Deps } from '../../deps.ts';
import type { Book } from '../../shared/book.ts';
import { fieldErrors, notFound } from '../../shared/errors.ts';
import { dollarsText } from '../../shared/money.ts';
import { letterPdf, lettersPdf } from '../contributions/index.ts';
import { LEFT_OUT } from './payments.service.ts';
import * as store from './payments.store.ts';

/** Who the charity is told gave: as the donor chose. */
export function donorAsShared(share: string, name: string, email: string | null): string {
  if (share === 'anonymous') return 'An anonymous donor';
  if (share === 'name_and_email' && email !== null) return `${name} <${email}>`;
  return name;
}

type Lines = Awaited<ReturnType<typeof store.remittanceLines>>;
type Write = Parameters<Parameters<typeof letterPdf>[1]>[0];

/** The lines of one payment's letter: the sponsor, the organisation, the payment, each grant as its donor chose. */
function letterLines(deps: Deps, book: Book, payment: store.PaymentRow, payDate: string, lines: Lines): (line: Write) => void {
  const sponsor = deps.config.sponsor;
  return (line) => {
    line(sponsor.name, { size: 18, bold: true, gap: 4 });
    line(`EIN ${sponsor.ein}`, { gap: 2 });
    line(sponsor.address, { gap: 24 });
    line(`Remittance advice: payment ${payment.id}${book === 'test' ? ' (sandbox: no money moved)' : ''}`, { size: 14, bold: true, gap: 14 });
    line(`To: ${payment.payee}, EIN ${payment.ein.slice(0, 2)}-${payment.ein.slice(2)}`);
    for (const l of payment.address.split('\n')) if (l !== '') line(l, { gap: 2 });
    line('', { gap: 8 });
    line(`Date: ${payDate}`);
    line(`Amount: $${dollarsText(Number(payment.amount_cents))}, ${payment.method === 'ach' ? 'by ACH credit' : `by check number ${payment.check_number}`}`);
    line(`Grants: ${lines.length}`, { gap: 16 });
    for (const g of lines) {
      line(`Grant ${g.donation_id}: $${dollarsText(Number(g.amount_cents))} from ${donorAsShared(g.share, g.name, g.email ?? null)}`, { bold: true, gap: 2 });
      if (g.designation !== null) line(`For: ${g.designation}`, { gap: 2 });
      if (g.dedication !== null) line(`Dedication: ${g.dedication}`, { gap: 2 });
      // Made at the charity's own checkout (rules §24): its provider's id, to match it there.
      if (g.tracking_id !== null) line(`Checkout tracking id: ${g.tracking_id}`, { gap: 2 });
      line('', { gap: 6 });
    }
    line('These grants come from donor-advised funds held by the sponsor, which has exclusive legal control over them. No goods or services may be provided in return.', {
      gap: 4,
    });
  };
}

async function letterOf(deps: Deps, book: Book, payment: store.PaymentRow, payDate: string): Promise<Uint8Array> {
  const lines = await store.remittanceLines(deps.db, [Number(payment.id)]);
  return await letterPdf(`Remittance advice, payment ${payment.id}`, letterLines(deps, book, payment, payDate, lines));
}

/** One payment's remittance advice (PDF). Throws payment_not_found. */
export async function remittance(deps: Deps, book: Book, paymentId: number): Promise<Uint8Array> {
  const payment = await store.findPayment(deps.db, book, paymentId);
  if (payment === undefined) throw notFound('payment_not_found', `no payment ${paymentId}`);
  const run = await store.findRun(deps.db, book, Number(payment.run_id));
  return await letterOf(deps, book, payment, run?.pay_date ?? '');
}

/** Letters in one file of a run's remittance advice: a file's memory grows with its letters (about 150 KiB each until saved), so a run of thousands is several files. */
export const LETTERS_PER_FILE = 500;

/**
 * One file of a run's remittance advice: letters `(part - 1) * LETTERS_PER_FILE` onwards, each on
 * its own pages, the fonts embedded once. The grants are read for the file's payments at once.
 * `signal` stops it between letters (the client went away); `progress` hears every 100 letters.
 * Throws payment_run_not_found, validation_failed (a part the run does not have).
 */
export async function runRemittances(
  deps: Deps,
  book: Book,
  runId: number,
  options: { part?: number; perFile?: number; signal?: AbortSignal; progress?: (done: number, total: number) => void } = {},
): Promise<{ pdf: Uint8Array; part: number; parts: number; letters: number }> {
  const run = await store.findRun(deps.db, book, runId);
  if (run === undefined) throw notFound('payment_run_not_found', `no payment run ${runId}`);
  const payments = (await store.paymentsOfRun(deps.db, runId)).filter((p) => !LEFT_OUT.has(p.status));
  const perFile = options.perFile ?? LETTERS_PER_FILE;
  const parts = Math.max(1, Math.ceil(payments.length / perFile));
  const part = options.part ?? 1;
  if (!Number.isSafeInteger(part) || part < 1 || part > parts)
    throw fieldErrors([{ field: 'part', code: 'validation_failed', message: `the run's remittance advice is ${parts} file${parts === 1 ? '' : 's'}: part 1 to ${parts}` }]);
  const chunk = payments.slice((part - 1) * perFile, part * perFile);
  const letters = await lettersPdf(`Remittance advice, payment run ${runId}${parts === 1 ? '' : `, part ${part} of ${parts}`}`);
  const lines = Map.groupBy(
    await store.remittanceLines(
      deps.db,
      chunk.map((p) => Number(p.id)),
    ),
    (l) => Number(l.payment_id),
  );
  for (const [i, payment] of chunk.entries()) {
    options.signal?.throwIfAborted();
    await letters.add(letterLines(deps, book, payment, run.pay_date, lines.get(Number(payment.id)) ?? []));
    if ((i + 1) % 100 === 0 || i === chunk.length - 1) options.progress?.(i + 1, chunk.length);
  }
  if (letters.pages() === 0) await letters.add(() => undefined);
  return { pdf: await letters.save(), part, parts, letters: chunk.length };
}
