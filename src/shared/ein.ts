// An EIN, the one rule (docs/rules.md §9): nine digits, written with or without the dash after the
// second; kept as the nine digits. The API's schemas, its services and the web forms all ask here.
import { AppError } from './errors.ts';

/** The pattern the API's schemas check an EIN against. */
export const EIN_PATTERN = '^[0-9]{2}-?[0-9]{7}$';

/** What a bad EIN is told, wherever it was typed. */
export const EIN_RULE = 'must be 9 digits, as 123456789 or 12-3456789';

/** "26-1544963" or "261544963" -> "261544963"; anything else -> null. */
export function normalizeEin(input: string): string | null {
  const trimmed = input.trim();
  if (/^\d{9}$/.test(trimmed)) return trimmed;
  if (/^\d{2}-\d{7}$/.test(trimmed)) return trimmed.replace('-', '');
  return null;
}

/** The nine digits of `text`, or 422 validation_failed naming `field`. */
export function requireEin(text: string, field = 'ein'): string {
  const ein = normalizeEin(text);
  if (ein !== null) return ein;
  throw new AppError('unprocessable', 'validation_failed', `${field} ${EIN_RULE}`, { errors: [{ field, code: 'validation_failed', message: EIN_RULE }] });
}
