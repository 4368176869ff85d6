// The money counts an operator alerts on, as the services see them: a sink
// they report to after their transaction committed (src/metrics.ts counts
// them with prom-client for GET /metrics).
import type { Book } from './book.ts';

export interface MoneyCounters {
  /** A donation was created (by the API, the web app, a recurring schedule or a gift's claim). */
  donationCreated(book: Book, amountCents: number): void;
  /** A contribution was recorded in, or moved to, `status`. */
  contribution(book: Book, status: string, amountCents: number): void;
  /** An organisation's bank details were changed by its only claimant: no one else of it was told. */
  payeeChangedUnseen(): void;
}
