// What the IRS file says of an organisation, in words a donor reads on its
// page: where it is, since when it is recognised, whether gifts to it are
// deductible, what kind of organisation it is and does, how big it is, and,
// when it cannot receive donations, why. Pure: the codes are the BMF's
// (codes/bmf_field_codes.csv beside the IRS data), the activities NTEE's.
import { readFileSync } from 'node:fs';
import { displayName, isEligible } from './nonprofits.ts';
import type { DetailRow } from './nonprofits.store.ts';

/** The IRS columns a page reads, as the store keeps them (amounts in whole dollars, as the IRS reports them). */
export type IrsDetails = Omit<DetailRow, 'removed_at'> & { removed: boolean };

export interface CharityProfile {
  /** The postal address, one line a part; a foreign organisation's country (the IRS puts it in the city) is its last line. */
  address: string[];
  ruling_year: string | undefined;
  deductibility: string;
  /** "Public charity", "Private foundation", "Church", "Supporting organization"... */
  kind: string;
  /** "Central organization of a group"... when the IRS says it belongs to one. */
  group: string | undefined;
  /** The NTEE activity in words: "Food Banks & Food Pantries (K31)". */
  activity: string | undefined;
  /** The last return's figures, when it filed one with figures. */
  size: { revenue: number; assets: number; income: number; year: string } | undefined;
  status: string;
  /** Why it cannot receive donations; undefined when it can. */
  ineligible: string | undefined;
}

const DEDUCTIBILITY: Record<string, string> = {
  '1': 'Contributions are tax-deductible',
  '2': 'Contributions are not tax-deductible',
  '4': 'Contributions are deductible under a tax treaty (a foreign organisation)',
};

const STATUS: Record<string, string> = {
  '01': 'Exempt (unconditional exemption)',
  '02': 'Exempt (conditional exemption)',
  '12': 'A charitable trust (section 4947(a)(2)), not itself exempt',
  '25': 'Terminating its private foundation status',
};

const FOUNDATION: Record<string, string> = {
  '02': 'Private operating foundation',
  '03': 'Private operating foundation',
  '04': 'Private foundation',
  '10': 'Church',
  '11': 'School',
  '12': 'Hospital or medical research organisation',
  '13': 'Organisation supporting a college or university',
  '14': 'Governmental unit',
  '15': 'Public charity (publicly supported)',
  '16': 'Public charity',
  '17': 'Supporting organisation of a public charity',
  '18': 'Public safety testing organisation',
  '21': 'Supporting organisation of a public charity (type I)',
  '22': 'Supporting organisation of a public charity (type II)',
  '23': 'Supporting organisation of a public charity (type III)',
  '24': 'Supporting organisation of a public charity (type III)',
};

const AFFILIATION: Record<string, string> = {
  '1': 'The central organisation of a national, regional or local group',
  '2': 'An intermediate organisation of a group (such as a state headquarters)',
  '6': 'The parent of a group of organisations the IRS recognises together',
  '7': 'An intermediate organisation of a group the IRS recognises together',
  '8': 'The parent of a group of churches the IRS recognises together',
  '9': 'A member of a group the IRS recognises together (a chapter, branch or congregation)',
};

let ntee: Map<string, string> | undefined;

/** NTEE code -> title, read once from the table shipped beside this file. */
function nteeTitles(): Map<string, string> {
  ntee ??= new Map(
    readFileSync(new URL('./ntee.tsv', import.meta.url), 'utf8')
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#'))
      .map((line) => line.split('\t') as [string, string]),
  );
  return ntee;
}

/** An NTEE code in words: its own title, or its major group's for a code the table does not know. */
export function activityOf(code: string | null): string | undefined {
  if (code === null || code === '') return undefined;
  const upper = code.toUpperCase();
  const titles = nteeTitles();
  const title = titles.get(upper.slice(0, 3)) ?? titles.get(upper.slice(0, 1));
  return title === undefined ? undefined : `${title} (${upper})`;
}

function kindOf(d: IrsDetails): string {
  if (d.subsection !== '' && d.subsection !== '03') return `Exempt organisation, section 501(c)(${Number(d.subsection)}): not a charity`;
  if (d.organization === '6' || d.status === '12') return 'Charitable trust';
  return FOUNDATION[d.foundation] ?? (d.subsection === '03' ? 'Charity, section 501(c)(3)' : 'Organisation the IRS lists as exempt');
}

/** Why an organisation cannot receive donations, in words; undefined when it can. */
export function ineligibleReason(d: Pick<IrsDetails, 'deductibility' | 'status' | 'removed'>): string | undefined {
  if (d.removed) return 'The IRS no longer lists it: its latest file of exempt organisations does not include it.';
  if (isEligible(d.deductibility, d.status)) return undefined;
  if (d.deductibility === '2') return 'The IRS lists contributions to it as not tax-deductible.';
  if (d.deductibility !== '1' && d.deductibility !== '4') return 'The IRS does not list contributions to it as tax-deductible.';
  if (d.status === '12') return 'It is a charitable trust, not an organisation the IRS recognises as exempt.';
  if (d.status === '25') return 'It is terminating its private foundation status.';
  return 'The IRS does not list it as an exempt organisation in good standing.';
}

/**
 * An organisation's postal address as lines, the one format every page, letter and check uses:
 * the street; then "City, ST ZIP" at home, or for a foreign organisation (no state) its city on a
 * line of its own, never the 00000-0000 the IRS gives it for a ZIP code.
 */
export function postalLines(a: { street: string; city: string; state: string; zip: string }): string[] {
  const foreign = a.state === '';
  const zip = /^[0-]*$/.test(a.zip) ? '' : a.zip;
  const cityLine = foreign ? a.city : [a.city, [a.state, zip].filter((p) => p !== '').join(' ')].filter((p) => p !== '').join(', ');
  return [displayName(a.street).replace(/^Po Box\b/, 'PO Box'), cityLine].filter((line) => line !== '');
}

export function charityProfile(d: IrsDetails): CharityProfile {
  const year = /^\d{6}$/.test(d.tax_period) ? d.tax_period.slice(0, 4) : undefined;
  return {
    address: postalLines(d),
    ruling_year: /^\d{6}$/.test(d.ruling) && d.ruling !== '000000' ? d.ruling.slice(0, 4) : undefined,
    deductibility: DEDUCTIBILITY[d.deductibility] ?? 'The IRS does not say whether contributions are deductible',
    kind: kindOf(d),
    group: AFFILIATION[d.affiliation],
    activity: activityOf(d.ntee_code),
    // Small organisations file the e-Postcard, with no figures: all zero.
    size: year === undefined || d.revenue_amt + d.asset_amt + d.income_amt === 0 ? undefined : { revenue: d.revenue_amt, assets: d.asset_amt, income: d.income_amt, year },
    status: d.removed ? 'No longer listed by the IRS' : (STATUS[d.status] ?? 'Not stated'),
    ineligible: ineligibleReason(d),
  };
}
