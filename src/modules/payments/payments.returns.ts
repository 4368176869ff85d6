// The ACH return codes NACHA defines (Operating Rules, Appendix Four), one table: what each means
// in words a donor reads, and whether it says the receiving account cannot take credits, so that
// the organisation's bank details stop being used (docs/rules.md §17). A code of a debit-only or
// enrollment rule is still a return that gives the grants back: any code NACHA defines is recorded.

export interface AchReturn {
  /** What the donor is told (the receiving bank's reason, never the donor's). */
  words: string;
  /** The account cannot take credits: its bank details are suspended; the organisation is paid by check until new ones. */
  stops: boolean;
}

const r = (words: string, stops = false): AchReturn => ({ words, stops });

export const ACH_RETURNS: Readonly<Record<string, AchReturn>> = {
  R01: r('the receiving bank reported insufficient funds in the account (its reason, not the donor’s)'),
  R02: r('the account is closed', true),
  R03: r('no account, or the account could not be found', true),
  R04: r('the account number is invalid', true),
  R05: r('an unauthorised debit to a consumer account'),
  R06: r('returned at the originating bank’s request'),
  R07: r('authorisation revoked'),
  R08: r('payment stopped'),
  R09: r('uncollected funds'),
  R10: r('the receiver does not know this payment'),
  R11: r('the entry was not as authorised'),
  R12: r('the account was sold to another bank', true),
  R13: r('the routing number is not an ACH one', true),
  R14: r('the representative payee died', true),
  R15: r('the account holder died', true),
  R16: r('the account is frozen', true),
  R17: r('the file record was in error'),
  R18: r('the effective date was improper'),
  R19: r('the amount field was in error'),
  R20: r('the account cannot receive this payment', true),
  R21: r('the company identification was invalid'),
  R22: r('the individual identification was invalid'),
  R23: r('the receiver refused the credit', true),
  R24: r('a duplicate entry'),
  R25: r('the addenda record was in error'),
  R26: r('a mandatory field was in error'),
  R27: r('the trace number was in error'),
  R28: r('the routing number’s check digit is wrong', true),
  R29: r('the company says it is not authorised'),
  R30: r('the bank does not take part in check truncation'),
  R31: r('a permissible return (CCD)'),
  R32: r('the receiving bank could not settle'),
  R33: r('a return of an XCK entry'),
  R34: r('the receiving bank takes limited part in ACH', true),
  R35: r('a return of an improper debit'),
  R36: r('a return of an improper credit'),
  R37: r('the source document was presented for payment'),
  R38: r('payment stopped on the source document'),
  R39: r('the source document was improper'),
  R40: r('an enrollment returned by a federal agency'),
  R41: r('an enrollment’s transaction code was invalid'),
  R42: r('an enrollment’s routing number was in error'),
  R43: r('an enrollment’s account number was invalid'),
  R44: r('an enrollment’s identification was invalid'),
  R45: r('an enrollment’s name was invalid'),
  R46: r('an enrollment’s representative payee indicator was invalid'),
  R47: r('a duplicate enrollment'),
  R50: r('state law does not accept this entry'),
  R51: r('the item is not eligible for this entry'),
  R52: r('payment stopped on the item'),
  R53: r('the item and the entry were both presented'),
  R61: r('the return was misrouted'),
  R62: r('a return of an erroneous or reversing debit'),
  R67: r('a duplicate return'),
  R68: r('an untimely return'),
  R69: r('a return with field errors'),
  R70: r('a permissible return that was not accepted'),
  R71: r('a misrouted dishonored return'),
  R72: r('an untimely dishonored return'),
  R73: r('a timely original return'),
  R74: r('a corrected return'),
  R75: r('the return is not a duplicate'),
  R76: r('no errors were found'),
  R77: r('a dishonored return not accepted'),
  R80: r('an international entry was coded in error'),
  R81: r('the bank does not take part in international payments'),
  R82: r('the foreign bank’s identification was invalid'),
  R83: r('the foreign bank could not settle'),
  R84: r('the gateway did not process the entry'),
  R85: r('an outbound international payment was coded in error'),
};

/** A notification of change's corrected data: which of the bank details it replaces. */
export interface AchCorrection {
  routing?: string;
  account?: string;
  accountType?: 'checking' | 'savings';
}

/** What a change code (a notification of change, COR) says, and how its corrected data reads; `read` absent: it is noted, the details left as they are. */
export interface AchChange {
  words: string;
  read?: (corrected: string) => AchCorrection;
}

/** The account type a transaction code names: 2x a checking account, 3x a savings one. */
function typeOf(code: string): 'checking' | 'savings' | undefined {
  return /^2[2-4]$/.test(code) ? 'checking' : /^3[2-4]$/.test(code) ? 'savings' : undefined;
}

/** The corrected data of an addenda record (type 98), positions 36-64, as the NACHA Operating Rules lay it out per change code. */
export const ACH_CHANGES: Readonly<Record<string, AchChange>> = {
  C01: { words: 'the account number was incorrect', read: (c) => ({ account: c.slice(0, 17).trim() }) },
  C02: { words: 'the routing number was incorrect', read: (c) => ({ routing: c.slice(0, 9) }) },
  C03: { words: 'the routing and account numbers were incorrect', read: (c) => ({ routing: c.slice(0, 9), account: c.slice(12, 29).trim() }) },
  C04: { words: 'the receiver’s name was incorrect' },
  C05: { words: 'the account type (transaction code) was incorrect', read: (c) => ({ accountType: typeOf(c.slice(0, 2)) }) },
  C06: { words: 'the account number and type were incorrect', read: (c) => ({ account: c.slice(0, 17).trim(), accountType: typeOf(c.slice(20, 22)) }) },
  C07: {
    words: 'the routing number, account number and type were incorrect',
    read: (c) => ({ routing: c.slice(0, 9), account: c.slice(9, 26).trim(), accountType: typeOf(c.slice(26, 28)) }),
  },
  C08: { words: 'the foreign receiving bank’s identification was incorrect' },
  C09: { words: 'the individual identification number was incorrect' },
  C13: { words: 'the addenda format was incorrect' },
  C14: { words: 'the SEC code of an outbound international payment was incorrect' },
  C61: { words: 'a misrouted notification of change' },
  C62: { words: 'an incorrect trace number' },
  C63: { words: 'an incorrect company identification number' },
  C64: { words: 'an incorrect individual identification number' },
  C65: { words: 'incorrectly formatted corrected data' },
  C66: { words: 'an incorrect discretionary data' },
  C67: { words: 'the routing number is not of the originating bank' },
  C68: { words: 'multiple errors' },
  C69: { words: 'an incorrect corrected data' },
};
