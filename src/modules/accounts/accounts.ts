// Rules for web accounts: what an email and a password must be, how long a
// session lives, how many failed sign-ins are allowed. No I/O here.
import { randomBytes } from 'node:crypto';

export const EMAIL_MAX = 254;
/** NIST 800-63B: a length rule and no composition rules; the cap bounds the hashing work. */
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;
/** Failed sign-ins allowed per email, and per address, inside the window; further attempts are refused until it passes. */
export const SIGN_IN_FAILURES_PER_EMAIL = 5;
export const SIGN_IN_FAILURES_PER_IP = 50;
export const SIGN_IN_WINDOW_MS = 15 * 60_000;

const EMAIL_PATTERN = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/;

/**
 * Trimmed, in Unicode's compatibility form (NFKC: a full-width ＡＤＡ＠ｅｘａｍｐｌｅ．ｏｒｇ is
 * ada@example.org, so a look-alike makes no second account) and lower-cased; or null when it
 * cannot be an address.
 */
export function normalizeEmail(text: string): string | null {
  const email = text.trim().normalize('NFKC').toLowerCase();
  return email.length <= EMAIL_MAX && EMAIL_PATTERN.test(email) ? email : null;
}

export function passwordProblem(password: string): string | undefined {
  const length = [...password].length;
  if (length < PASSWORD_MIN) return `must be at least ${PASSWORD_MIN} characters`;
  if (length > PASSWORD_MAX) return `must be at most ${PASSWORD_MAX} characters`;
  return undefined;
}

/** A secret for a cookie or a form: 256 bits from the CSPRNG. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}
