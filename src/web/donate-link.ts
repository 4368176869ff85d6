// Donate links (docs/rules.md §23): /donate/<ein>?amount=&frequency=&designation=&dedication=&share=
// &external_id=&metadata=&success_url=&exit_url=&app=. The link's fields are read here, from its
// query and again from the confirmation form it fills, with the same rules; its return addresses
// are the apps module's to check (no open redirect), every time.
import type { Deps } from '../deps.ts';
import { AppError, fieldErrors } from '../shared/errors.ts';
import { EXTERNAL_ID_MAX, metadataProblem } from '../shared/partner.ts';
import { DEDICATION_MAX, DESIGNATION_MAX, SHARES, type Share } from '../modules/donations/index.ts';
import { donateLinkApp } from '../modules/apps/index.ts';
import { CONTENT_SECURITY_POLICY } from './context.ts';

export const LINK_FREQUENCIES = ['once', 'monthly', 'yearly'] as const;
export type LinkFrequency = (typeof LINK_FREQUENCIES)[number];

/** What a donate link carries, checked; `metadata` as the JSON text it came as. */
export interface DonateLink {
  amount: string;
  frequency: LinkFrequency;
  designation: string;
  dedication: string;
  share: Share;
  external_id: string;
  metadata: string;
  success_url: string;
  exit_url: string;
  app: string;
  /** The app's name and row, when the link names one. */
  app_name?: string;
  app_id?: number;
}

/** The link's fields as `get` reads them (a query, or the form it filled), checked. Throws validation_failed, app_not_found, return_url_not_registered. */
export async function readLink(deps: Deps, get: (name: string) => string | null | undefined): Promise<DonateLink> {
  const text = (name: string) => (get(name) ?? '').trim();
  const link = {
    amount: text('amount'),
    // The confirmation form carries the recurring form's Monthly / Yearly: the same, in any case.
    frequency: (text('frequency').toLowerCase() || 'once') as LinkFrequency,
    designation: text('designation'),
    dedication: text('dedication'),
    share: (text('share') || 'name') as Share,
    external_id: text('external_id'),
    metadata: text('metadata'),
    success_url: text('success_url'),
    exit_url: text('exit_url'),
    app: text('app'),
  };
  const errors = [
    ...(LINK_FREQUENCIES.includes(link.frequency) ? [] : [['frequency', 'must be once, monthly or yearly']]),
    ...((SHARES as readonly string[]).includes(link.share) ? [] : [['share', `must be one of ${SHARES.join(', ')}`]]),
    ...(link.designation.length > DESIGNATION_MAX ? [['designation', `must be at most ${DESIGNATION_MAX} characters`]] : []),
    ...(link.dedication.length > DEDICATION_MAX ? [['dedication', `must be at most ${DEDICATION_MAX} characters`]] : []),
    ...(link.external_id.length > EXTERNAL_ID_MAX ? [['external_id', `must be at most ${EXTERNAL_ID_MAX} characters`]] : []),
    ...(link.metadata === '' ? [] : [['metadata', metadataTextProblem(link.metadata)]].filter(([, p]) => p !== undefined)),
  ] as Array<[string, string]>;
  if (errors.length > 0) throw fieldErrors(errors.map(([field, message]) => ({ field, code: 'validation_failed', message })));
  const app = await donateLinkApp(deps, link.app, [
    ['success_url', link.success_url],
    ['exit_url', link.exit_url],
  ]);
  return { ...link, ...(app === undefined ? {} : { app_name: app.name, app_id: app.id }) };
}

function metadataTextProblem(text: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'must be a JSON object of strings';
  }
  return metadataProblem(value);
}

/** The donation's partner fields and choices from a link: its metadata marked as the donor's browser's (`_source`), not an app's. */
export function linkDonationFields(link: DonateLink) {
  return {
    share: link.share,
    ...(link.designation === '' ? {} : { designation: link.designation }),
    ...(link.dedication === '' ? {} : { dedication: link.dedication }),
    ...(link.external_id === '' ? {} : { external_id: link.external_id }),
    metadata: { ...(link.metadata === '' ? {} : (JSON.parse(link.metadata) as Record<string, string>)), _source: 'donate_link' },
    // The app the link names hears of it (rules §25).
    ...(link.app_id === undefined ? {} : { via_app_id: link.app_id }),
  };
}

/**
 * The content security policy of a page whose form a link filled: its form may lead (by the
 * redirect after it) to the link's success_url, an origin its app registered, and nowhere else.
 */
export function linkFormPolicy(link: DonateLink): string {
  return link.success_url === '' ? CONTENT_SECURITY_POLICY : CONTENT_SECURITY_POLICY.replace("form-action 'self'", `form-action 'self' ${new URL(link.success_url).origin}`);
}

/** Where the donor goes once it is made: the link's success_url with the object's id, or undefined. */
export function successLocation(link: DonateLink, name: 'donation_id' | 'scheduled_donation_id', id: number): string | undefined {
  if (link.success_url === '') return undefined;
  const url = new URL(link.success_url);
  url.searchParams.set(name, String(id));
  return url.toString();
}

/** What is wrong with a link, in a sentence: its first field's problem, or the error's message. */
export function linkProblem(error: AppError): string {
  const first = error.errors?.[0];
  return first === undefined ? `${error.message.charAt(0).toUpperCase()}${error.message.slice(1)}.` : `The link's ${first.field} ${first.message}.`;
}

/** Whether an error is the link's own (its fields or its return addresses), shown as a page, not beside the form. */
export function isLinkError(error: unknown): error is AppError {
  return error instanceof AppError && ['validation_failed', 'app_not_found', 'return_url_not_registered'].includes(error.code);
}
