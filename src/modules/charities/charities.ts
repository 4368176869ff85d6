// The rules of claiming an organisation (docs/rules.md §18) that need no
// database: which web domain an address must be at, and how long a
// confirmation link works.

/** A confirmation link works this long (a day: the mailbox may be a shared one read later). */
export const CLAIM_LINK_TTL_MS = 24 * 3_600_000;

/** A new link for the same claim goes out at most this often: the form is no way to flood an organisation's mailbox. */
export const CLAIM_RESEND_MS = 10 * 60_000;

/** Claims a person may have waiting for their link at once (each sent a mail to an organisation). */
export const UNCONFIRMED_CLAIMS_MAX = 5;

/** Claim links one address receives in an hour, from every account together: no flooding a mailbox from many accounts. */
export const CLAIM_MAILS_PER_ADDRESS_PER_HOUR = 3;

/** The host of a website address, lower-case, without a leading `www.`; null when it is not a web address. */
export function webDomain(website: string): string | null {
  const text = website.trim();
  if (text === '') return null;
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
    const host = url.hostname.toLowerCase().replace(/^www\./, '');
    // A name with a dot and letters in its last label: not an address (1.2.3.4, [::1]) nor a bare name.
    return /^([a-z0-9-]+\.)+[a-z][a-z0-9-]*[a-z0-9]$/.test(host) ? host : null;
  } catch {
    return null;
  }
}

/**
 * Whether an e-mail address is at a web domain: its domain is the site's, or one is below the
 * other (`jo@mail.example.org` for example.org; `jo@example.org` for give.example.org).
 */
export function emailAtDomain(email: string, domain: string): boolean {
  const at = email.lastIndexOf('@');
  if (at < 1) return false;
  const own = email.slice(at + 1).toLowerCase();
  return own === domain || own.endsWith(`.${domain}`) || domain.endsWith(`.${own}`);
}

export type ClaimStatus = 'unconfirmed' | 'pending' | 'approved' | 'rejected';
