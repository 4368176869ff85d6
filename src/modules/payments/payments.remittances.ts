// Remittance advice (docs/rules.md §17): one printable letter per payment,
// telling the organisation what it is paid and for what: each grant with its
// donor as they chose (name and e-mail, name, or anonymous), its designation
// and its dedication. A run's remittances are its payments' letters in one file.
import { PDFDocument } from 'pdf-lib';
import type { Deps } from '../../deps.ts';
import type { Book } from '../../shared/book.ts';
import { notFound } from '../../shared/errors.ts';
import { dollarsText } from '../../shared/money.ts';
import { letterPdf } from '../contributions/index.ts';
import { LEFT_OUT } from './payments.service.ts';
import * as store from './payments.store.ts';

/** Who the charity is told gave: as the donor chose. */
export function donorAsShared(share: string, name: string, email: string | null): string {
  if (share === 'anonymous') return 'An anonymous donor';
  if (share === 'name_and_email' && email !== null) return `${name} <${email}>`;
  return name;
}

async function letterOf(deps: Deps, book: Book, payment: store.PaymentRow, payDate: string): Promise<Uint8Array> {
  const lines = await store.remittanceLines(deps.db, [Number(payment.id)]);
  const sponsor = deps.config.sponsor;
  return await letterPdf(`Remittance advice, payment ${payment.id}`, (line) => {
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
      line('', { gap: 6 });
    }
    line('These grants come from donor-advised funds held by the sponsor, which has exclusive legal control over them. No goods or services may be provided in return.', {
      gap: 4,
    });
  });
}

/** One payment's remittance advice (PDF). Throws payment_not_found. */
export async function remittance(deps: Deps, book: Book, paymentId: number): Promise<Uint8Array> {
  const payment = await store.findPayment(deps.db, book, paymentId);
  if (payment === undefined) throw notFound('payment_not_found', `no payment ${paymentId}`);
  const run = await store.findRun(deps.db, book, Number(payment.run_id));
  return await letterOf(deps, book, payment, run?.pay_date ?? '');
}

/** Every payment's remittance advice of a run, in one PDF (each letter on its own pages). Throws payment_run_not_found. */
export async function runRemittances(deps: Deps, book: Book, runId: number): Promise<Uint8Array> {
  const run = await store.findRun(deps.db, book, runId);
  if (run === undefined) throw notFound('payment_run_not_found', `no payment run ${runId}`);
  const all = await PDFDocument.create();
  all.setTitle(`Remittance advice, payment run ${runId}`);
  all.setProducer('Almoner');
  for (const payment of await store.paymentsOfRun(deps.db, runId)) {
    if (LEFT_OUT.has(payment.status)) continue;
    const letter = await PDFDocument.load(await letterOf(deps, book, payment, run.pay_date));
    for (const page of await all.copyPages(letter, letter.getPageIndices())) all.addPage(page);
  }
  if (all.getPageCount() === 0) all.addPage([612, 792]);
  return await all.save();
}
