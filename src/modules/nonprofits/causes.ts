// The cause taxonomy: one cause per NTEE major group family. A non-profit's
// main cause comes from the first letter of its NTEE code; an organisation
// without a code gets "General" (id 23). Ids are stable: clients filter on them.
export interface Cause {
  id: number;
  name: string;
  slug: string;
  color: string;
  ntee_groups: string;
}

export const CAUSES: readonly Cause[] = [
  { id: 1, name: 'Arts & Culture', slug: 'arts-culture', color: '#8E44AD', ntee_groups: 'A' },
  { id: 2, name: 'Education', slug: 'education', color: '#2E86C1', ntee_groups: 'B' },
  { id: 3, name: 'Environment', slug: 'environment', color: '#229954', ntee_groups: 'C' },
  { id: 4, name: 'Animals', slug: 'animals', color: '#CA6F1E', ntee_groups: 'D' },
  { id: 5, name: 'Health', slug: 'health', color: '#C0392B', ntee_groups: 'EGH' },
  { id: 6, name: 'Mental Health', slug: 'mental-health', color: '#7D3C98', ntee_groups: 'F' },
  { id: 7, name: 'Justice & Legal Aid', slug: 'justice-legal-aid', color: '#34495E', ntee_groups: 'I' },
  { id: 8, name: 'Employment', slug: 'employment', color: '#1F618D', ntee_groups: 'J' },
  { id: 9, name: 'Food & Agriculture', slug: 'food-agriculture', color: '#B7950B', ntee_groups: 'K' },
  { id: 10, name: 'Housing & Shelter', slug: 'housing-shelter', color: '#A04000', ntee_groups: 'L' },
  { id: 11, name: 'Disaster Relief & Public Safety', slug: 'disaster-relief', color: '#E74C3C', ntee_groups: 'M' },
  { id: 12, name: 'Sports & Recreation', slug: 'sports-recreation', color: '#16A085', ntee_groups: 'N' },
  { id: 13, name: 'Youth Development', slug: 'youth-development', color: '#F39C12', ntee_groups: 'O' },
  { id: 14, name: 'Human Services', slug: 'human-services', color: '#D35400', ntee_groups: 'P' },
  { id: 15, name: 'International Affairs', slug: 'international', color: '#2874A6', ntee_groups: 'Q' },
  { id: 16, name: 'Civil Rights & Advocacy', slug: 'civil-rights', color: '#6C3483', ntee_groups: 'R' },
  { id: 17, name: 'Community Development', slug: 'community-development', color: '#117A65', ntee_groups: 'S' },
  { id: 18, name: 'Philanthropy & Grantmaking', slug: 'philanthropy', color: '#5D6D7E', ntee_groups: 'T' },
  { id: 19, name: 'Science & Technology', slug: 'science-technology', color: '#1ABC9C', ntee_groups: 'UV' },
  { id: 20, name: 'Public Benefit', slug: 'public-benefit', color: '#566573', ntee_groups: 'W' },
  { id: 21, name: 'Religion', slug: 'religion', color: '#9A7D0A', ntee_groups: 'X' },
  { id: 22, name: 'Mutual Benefit', slug: 'mutual-benefit', color: '#7B7D7D', ntee_groups: 'Y' },
  { id: 23, name: 'General', slug: 'general', color: '#95A5A6', ntee_groups: 'Z' },
];

export const GENERAL_CAUSE_ID = 23;

const BY_LETTER = new Map<string, number>();
for (const cause of CAUSES) for (const letter of cause.ntee_groups) BY_LETTER.set(letter, cause.id);
const BY_ID = new Map(CAUSES.map((c) => [c.id, c]));

export function causeIdForNtee(ntee: string | null | undefined): number {
  const letter = (ntee ?? '').trim().charAt(0).toUpperCase();
  return BY_LETTER.get(letter) ?? GENERAL_CAUSE_ID;
}

export function causeById(id: number): Cause | undefined {
  return BY_ID.get(id);
}

export function causeLogoUrl(publicUrl: string, cause: Cause): string {
  return `${publicUrl}/static/causes/${cause.slug}.svg`;
}

export function causeJson(publicUrl: string, cause: Cause) {
  return { id: cause.id, name: cause.name, color: cause.color, logo: causeLogoUrl(publicUrl, cause) };
}

/** A plain SVG badge in the cause's colour, served as every cause's logo. */
export function causeLogoSvg(cause: Cause): string {
  const initials = cause.name
    .split(/[^A-Za-z]+/)
    .filter((w) => w.length > 2 || w === 'Arts')
    .slice(0, 2)
    .map((w) => w[0])
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64"><rect width="64" height="64" rx="12" fill="${cause.color}"/><text x="32" y="41" font-family="sans-serif" font-size="24" font-weight="bold" fill="#fff" text-anchor="middle">${initials}</text></svg>`;
}
