// Pure rules for non-profits: EINs, display names, paths, eligibility.

import type { ProblemCode } from '../../shared/errors.ts';

export { normalizeEin, requireEin } from '../../shared/ein.ts';

// eslint-disable-next-line no-control-regex -- the whole ASCII range, control characters included, is what is tested
const ASCII = /^[\x00-\x7f]*$/;

export function slugify(text: string): string {
  // IRS data is ASCII: skip the Unicode folding when there is nothing to fold (the importer calls this 1.9M times).
  const folded = ASCII.test(text) ? text : text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
  return folded
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 120);
}

export function publicPath(ein: string, name: string, city: string, state: string): string {
  return `/charities/${ein}-${slugify([name, city, state].filter((p) => p !== '').join(' '))}`;
}

const SMALL_WORDS = new Set(['a', 'an', 'and', 'as', 'at', 'by', 'for', 'in', 'of', 'on', 'or', 'the', 'to', 'with', 'de', 'la', 'del']);
const UPPER_WORDS = new Set([
  'USA',
  'US',
  'YMCA',
  'YWCA',
  'NAACP',
  'PTA',
  'PTO',
  'PTSA',
  'VFW',
  'AFL',
  'CIO',
  'II',
  'III',
  'IV',
  'LLC',
  'DBA',
  'UMC',
  'AME',
  'NFP',
  'HIV',
  'AIDS',
  'ARC',
  'BPOE',
  'FOE',
  'IOOF',
  'USBC',
  'AARP',
  'NRA',
  'ATV',
  'KC',
  'AMVETS',
  'AAUW',
  'YMCA',
  'ACLU',
  'NAMI',
  'CASA',
  'SPCA',
  'WWII',
  'LGBT',
  'LGBTQ',
  'STEM',
  'TV',
  'FM',
  'AM',
  'DC',
  'NE',
  'NW',
  'SE',
  'SW',
  'PC',
]);

/** IRS names are ALL CAPS: "FRIENDS OF THE LIBRARY INC" -> "Friends of the Library Inc". */
export function displayName(irsName: string): string {
  const words = irsName.trim().replace(/\s+/g, ' ').split(' ');
  return words
    .map((word, index) => {
      const bare = word.replace(/[^A-Za-z]/g, '');
      if (UPPER_WORDS.has(bare.toUpperCase()) && bare.length > 0) return word.toUpperCase();
      const lower = word.toLowerCase();
      if (index > 0 && SMALL_WORDS.has(lower)) return lower;
      // Capitalise after the start and after ', -, / and ( so "O'NEIL" -> "O'Neil".
      return capitalizeAfter(lower, "-/('.&");
    })
    .join(' ');
}

/** Upper-cases a letter at the start and right after any of `separators`. */
function capitalizeAfter(lower: string, separators: string): string {
  let out = '';
  let up = true;
  for (const ch of lower) {
    out += up && ch >= 'a' && ch <= 'z' ? ch.toUpperCase() : ch;
    up = separators.includes(ch);
  }
  return out;
}

export function displayCity(irsCity: string): string {
  return capitalizeAfter(irsCity.trim().toLowerCase(), " \t-.'");
}

/**
 * May this organisation receive donations? Deductible contributions
 * (DEDUCTIBILITY 1, or 4 by treaty) and an exemption in force (STATUS 01
 * unconditional or 02 conditional). The BMF lists only recognised
 * organisations, so revoked ones never reach this point.
 */
export function isEligible(deductibility: string, status: string): boolean {
  return (deductibility === '1' || deductibility === '4') && (status === '01' || status === '02');
}

/** The words of a name or query: ASCII-folded, lower case, apostrophes dropped, split on anything else. */
export function tokenize(text: string): string[] {
  // Names are ASCII nearly always, and search tokenizes thousands a query: one pass over the
  // characters, without a regular expression (three took 16% of a search at 1.9M organisations).
  const lower = text.toLowerCase();
  const words: string[] = [];
  let word = '';
  let start = -1;
  for (let i = 0; i < lower.length; i++) {
    const c = lower.charCodeAt(i);
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
      if (start < 0) start = i;
      continue;
    }
    if (c > 127) return tokenizeText(text);
    if (start >= 0) word += lower.slice(start, i);
    start = -1;
    // An apostrophe or a backquote joins the word's parts ("St Luke's" is "st", "lukes").
    if (c === 39 || c === 96) continue;
    if (word !== '') words.push(word);
    word = '';
  }
  if (start >= 0) word += lower.slice(start);
  if (word !== '') words.push(word);
  return words;
}

/** tokenize for text beyond ASCII: accents off (NFKD, then the combining marks), then as ASCII. */
function tokenizeText(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/['\u2019`]/g, '')
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

/** The index entries of an organisation: its name words (n) and city words (c), each once. */
export function indexWords(name: string, city: string): Array<{ word: string; kind: 'n' | 'c' }> {
  const out = new Map<string, 'n' | 'c'>();
  for (const w of tokenize(name)) out.set(w, 'n');
  for (const w of tokenize(city)) if (!out.has(w)) out.set(w, 'c');
  return [...out].map(([word, kind]) => ({ word, kind }));
}

/**
 * What screening an organisation against the due diligence lists found (docs/rules.md §16):
 * `clear`; a reason it may receive no grant; or `review`, a close match on the sanctions list that
 * an operator has not decided (donations are taken, not paid).
 */
export const DILIGENCE = ['clear', 'review', 'revoked', 'private_foundation', 'supporting_organization', 'sanctioned'] as const;
export type Diligence = (typeof DILIGENCE)[number];

/** What a BMF FOUNDATION code refuses: 04, a private non-operating foundation; 24, a Type III supporting organisation not functionally integrated. */
export function foundationRefusal(code: string): 'private_foundation' | 'supporting_organization' | undefined {
  return code === '04' ? 'private_foundation' : code === '24' ? 'supporting_organization' : undefined;
}

/** Each refusal's stable problem code and the words for it. */
export const REFUSALS: Readonly<Record<Exclude<Diligence, 'clear' | 'review'>, { code: ProblemCode; why: string }>> = {
  revoked: { code: 'non_profit_revoked', why: 'the IRS revoked its tax exemption (the auto-revocation list)' },
  private_foundation: { code: 'non_profit_private_foundation', why: 'it is a private non-operating foundation, which a donor-advised fund may not grant to' },
  supporting_organization: {
    code: 'non_profit_supporting_organization',
    why: 'it is a Type III supporting organisation that is not functionally integrated, which a donor-advised fund may not grant to',
  },
  sanctioned: { code: 'non_profit_sanctioned', why: 'it is on the sanctions list (OFAC SDN)' },
};

/** Why an organisation may receive no grant, from its FOUNDATION code and its last screening; undefined when it may (or awaits review). */
export function refusalOf(np: { foundation: string; diligence: string }): { code: ProblemCode; why: string } | undefined {
  const found = np.diligence in REFUSALS ? (np.diligence as keyof typeof REFUSALS) : foundationRefusal(np.foundation);
  return found === undefined ? undefined : REFUSALS[found];
}
