// A page of the own list (form 2.1) written as JSON straight from the
// records: GET /v1/donations is the API's most read answer. The schema's
// serializer spent 35 us of a request's ~230 on a page of 25, most of it
// escaping the same non-profit card, fund and owner once per row. Here each
// card is written once while it is cached (cards.ts keeps it until the
// directory's records epoch moves), each fund and owner once per page, and a
// row once while the node keeps it (donations.rows.ts) and what it names is
// the same. The page is those rows' UTF-8 bytes put together, handed to the
// socket as they are: as text it was made, flattened, joined to the headers
// and encoded again, ~80 KB of a request's ~175 KB of garbage
// (docs/performance-history.md, 2026-12-06, closing). The bytes are the schema
// serializer's text to the byte: donations.json.test.ts compares the two on
// random pages.
import type { Deps } from '../../deps.ts';
import { metadataOf } from '../../shared/partner.ts';
import { centsToDollars } from '../../shared/money.ts';
import { assert } from '../../shared/assert.ts';
import type { Page } from '../../shared/page.ts';
import type { NonProfitCard } from '../nonprofits/index.ts';
import { avatarUrl } from '../users/index.ts';
import type { DonationRecord, Owner } from './donations.store.ts';
import type { Cards } from './donations.view.ts';

const text = JSON.stringify as (value: string) => string;

/** Each cached card's JSON (form 2.2, the schema's key order), for as long as the card is kept. */
const cardTexts = new WeakMap<NonProfitCard, string>();

function cardText(card: NonProfitCard): string {
  let json = cardTexts.get(card);
  if (json === undefined) {
    json =
      `{"ein":${text(card.ein)},"name":${text(card.name)},"website":${text(card.website)},"city":${text(card.city)},"state":${text(card.state)}` +
      `,"logo":${text(card.logo)},"public_path":${text(card.public_path)},"public_url":${text(card.public_url)},"cause_id":${integer(card.cause_id)}}`;
    cardTexts.set(card, json);
  }
  return json;
}

function integer(n: number): string {
  assert(Number.isSafeInteger(n), 'an integer field holds a safe integer');
  return String(n);
}

function nullable(value: string | null): string {
  return value === null ? 'null' : text(value);
}

/** Stored metadata (rules §21) as the serializer writes an object of strings. */
function metadataText(stored: string): string {
  return `{${Object.entries(metadataOf(stored))
    .map(([key, value]) => `${text(key)}:${text(value)}`)
    .join(',')}}`;
}

/** A row's own fields of form 2.1: what comes before the objects it names, and after them. */
function ownFieldsText(r: DonationRecord): readonly [string, string] {
  return [
    `{"id":${integer(r.id)},"amount":${String(centsToDollars(r.amount_cents))},"status":${text(r.status)}` +
      `,"scheduled_donation_id":${r.scheduled_donation_id === null ? 'null' : integer(r.scheduled_donation_id)}` +
      `,"visibility":${text(r.visibility)},"created_at":${text(r.created_at)},"mailed_at":${nullable(r.mailed_at)}`,
    // The serializer writes the optional properties after the required ones, in the schema's order;
    // the donor's choices only when made (donations.view.ts donorChoices).
    `${r.note === null ? '' : `,"note":${text(r.note)}`}${r.share === 'name' ? '' : `,"share":${text(r.share)}`}` +
      `${r.designation === null ? '' : `,"designation":${text(r.designation)}`}${r.dedication === null ? '' : `,"dedication":${text(r.dedication)}`}` +
      `${r.external_id === null ? '' : `,"external_id":${text(r.external_id)}`}${r.metadata === null ? '' : `,"metadata":${metadataText(r.metadata)}`}` +
      `${r.fundraiser_id === null ? '' : `,"fundraiser_id":${integer(r.fundraiser_id)}`}}`,
  ];
}

/**
 * A kept row's bytes in memory of their own: Buffer.from would cut a small text from a shared 8 KiB
 * slab, and a row kept for long would keep the whole slab, with the short-lived bytes beside it.
 */
function ownBytes(text: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  return bytes;
}

const ITEMS_OPEN = Buffer.from('{"items":[');
const COMMA = Buffer.from(',');

/**
 * `{"items":[...],"meta":{...}}` of form 2.1, as the route's response schema (OwnDonationPage) writes the page of ownListForm's
 * objects, as its UTF-8 bytes: a row kept at its revision keeps its bytes too, while its card is the same cached card and its
 * fund's and owner's JSON the same text, so a page read again is its kept rows' bytes put together, with no text made again.
 */
export function ownDonationPageJson(deps: Deps, cards: Cards, records: readonly DonationRecord[], meta: Page<unknown>['meta']): Buffer {
  // A page's rows share a few funds and one owner (donations.store.ts withOwners).
  const funds = new Map<number, { name: string; json: string }>();
  const owners = new Map<number, { owner: Owner; json: string }>();
  // Each row's bytes, and whether every one is a kept row's (only then can the page be kept).
  const rows: Buffer[] = [];
  let allKept = true;
  let length = ITEMS_OPEN.length;
  for (let i = 0; i < records.length; i += 1) {
    const r = records[i] as DonationRecord;
    const card = cards.get(r.non_profit_id);
    assert(card !== undefined, 'cardsFor read every non-profit of the records');
    let fund = funds.get(r.fund_id);
    if (fund === undefined || fund.name !== r.fund_name) {
      fund = { name: r.fund_name, json: `{"id":${integer(r.fund_id)},"name":${text(r.fund_name)}}` };
      funds.set(r.fund_id, fund);
    }
    let owner = owners.get(r.user_id);
    if (owner === undefined || owner.owner !== r.owner) {
      const o = r.owner;
      owner = { owner: o, json: `{"id":${integer(r.user_id)},"name":${text(o.name)},"city":${text(o.city)},"avatar":${text(avatarUrl(deps, o))},"slug":${text(o.slug)}}` };
      owners.set(r.user_id, owner);
    }
    // A row's bytes, written once while the node keeps the row at its revision (donations.rows.ts) and what it names is unchanged.
    const kept = deps.runtime.donationRows.get(r.id, r.revision);
    let row = kept?.bytes;
    if (row === undefined || row.card !== card || row.fund !== fund.json || row.owner !== owner.json) {
      const own = ownFieldsText(r);
      row = { card, fund: fund.json, owner: owner.json, bytes: ownBytes(`${own[0]},"non_profit":${cardText(card)},"fund":${fund.json},"user":${owner.json}${own[1]}`) };
      if (kept !== undefined) kept.bytes = row;
    }
    if (kept === undefined) allKept = false;
    rows.push(row.bytes);
    length += row.bytes.length + (i > 0 ? 1 : 0);
  }
  const tail = `],"meta":{"count":${integer(meta.count)},"page":${integer(meta.page)},"last":${integer(meta.last)}}}`;
  // A page read again (an app polling its first page) is the page kept from these very bytes.
  const key = records[0]?.user_id;
  const keptPage = allKept && key !== undefined ? deps.runtime.donationRows.page(key, rows, tail) : undefined;
  if (keptPage !== undefined) return keptPage;
  const page = Buffer.allocUnsafeSlow(length + Buffer.byteLength(tail));
  let at = ITEMS_OPEN.copy(page, 0);
  for (let i = 0; i < rows.length; i += 1) {
    if (i > 0) at += COMMA.copy(page, at);
    at += (rows[i] as Buffer).copy(page, at);
  }
  page.write(tail, at);
  if (allKept && key !== undefined) deps.runtime.donationRows.keepPage(key, rows, tail, page);
  return page;
}
