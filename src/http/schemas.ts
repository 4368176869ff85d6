// Schema pieces every module's HTTP contract shares.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { PER_PAGE_DEFAULT, PER_PAGE_MAX } from '../shared/page.ts';
import { AMOUNT_KEYWORD } from './validation.ts';
import { DECIMAL8_PATTERN, parseDollars, centsOfDollars } from '../shared/money.ts';
import { EXTERNAL_ID_MAX, METADATA_KEY_MAX, METADATA_KEYS_MAX, METADATA_VALUE_MAX } from '../shared/partner.ts';
import { EIN_PATTERN } from '../shared/ein.ts';
import { assert } from '../shared/assert.ts';
import { problemCodesOf } from '../shared/problem-codes.ts';

export const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String(),
    errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), code: Type.String(), message: Type.String() }))),
    request_id: Type.String(),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details' },
);

export const PageQuery = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1' })),
    per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: PER_PAGE_MAX, default: PER_PAGE_DEFAULT, description: `Records per page, 1 to ${PER_PAGE_MAX}` })),
  },
  { additionalProperties: true },
);

export const PageMeta = Type.Object({
  count: Type.Integer({ description: 'Total records' }),
  page: Type.Integer({ description: 'Page served' }),
  last: Type.Integer({ description: 'Last page number' }),
});

export function Paged<T extends TSchema>(item: T) {
  return Type.Object({ items: Type.Array(item), meta: PageMeta });
}

// Enums and nullable values are written as `enum` and type arrays, not as
// anyOf unions: the response serializer then writes them directly instead of
// validating each value against every branch (a measured 40% of a list's cost).
export function StringEnum<T extends string>(values: readonly T[], options: Record<string, unknown> = {}) {
  return Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });
}

export function Nullable<T extends TSchema & { type: string }>(schema: T) {
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type, 'null'] });
}

export const IsoDate = Type.String({ format: 'date-time' });

/** An EIN in a body: nine digits, with or without the dash (shared/ein.ts); a bad one is told EIN_RULE. */
export function Ein(description = 'EIN of the non-profit; 123456789 or 12-3456789') {
  return Type.String({ pattern: EIN_PATTERN, description });
}
export const NullableIsoDate = Nullable(IsoDate);

/** The cents of an amount the body schema (Amount) has already checked. */
export function checkedCents(dollars: number): number {
  const parsed = parseDollars(dollars);
  assert(parsed.ok, 'the body schema has checked the amount');
  return parsed.cents;
}

/** A dollar amount: at most 2 decimals, at least `minDollars`, at most 10,000,000. */
export function Amount(minDollars: number, description: string) {
  return Type.Number({ [AMOUNT_KEYWORD]: centsOfDollars(minDollars), description: `${description}; USD, at most 2 decimals, at least ${minDollars}, at most 10000000` });
}

export const EmptyObject = Type.Object({}, { additionalProperties: false });

/** A record's id: a whole number from 1 that JSON and JavaScript both hold exactly. */
export const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

/** `/:id` in a route's path. */
export const IdParams = Type.Object({ id: Id });

/** Units or a valuation as exact decimal text, up to 8 places (a JSON number is read as the text it prints). */
export const Decimal8 = Type.Union([Type.String({ pattern: DECIMAL8_PATTERN }), Type.Number({ exclusiveMinimum: 0 })], {
  description: 'Exact decimal, up to 8 places',
});

/** The error responses of every authenticated route, for the OpenAPI document. */
export function withProblems<T extends Record<number, TSchema>>(responses: T) {
  const ref = Type.Ref('Problem');
  return { ...responses, 400: ref, 401: ref, 404: ref, 422: ref, 429: ref };
}

type OpenApiOperation = { description?: string; 'x-problem-codes'?: string[] };

/**
 * The OpenAPI document with each operation's problem codes (`x-problem-codes`, and a line of its
 * description linking each code's page): the catalogue of shared/problem-codes.ts says which.
 */
export function withProblemCodes<T extends { paths?: object }>(doc: T): T {
  for (const [path, operations] of Object.entries((doc.paths ?? {}) as Record<string, Record<string, unknown> | undefined>)) {
    for (const [method, value] of Object.entries(operations ?? {})) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const operation = value as OpenApiOperation;
      const codes = problemCodesOf(method, path);
      operation['x-problem-codes'] = codes;
      const line = `Problem codes: ${codes.map((c) => `[${c}](/errors/${c})`).join(', ')}.`;
      operation.description = operation.description === undefined ? line : `${operation.description}\n\n${line}`;
    }
  }
  return doc;
}

/** Partner fields (rules §21): the owner's own id for an object, unique per owner and kind. */
export const ExternalId = Type.String({
  minLength: 1,
  maxLength: EXTERNAL_ID_MAX,
  description: 'Your own id for it (at most 255 characters): a second one with the same id is refused (409 external_id_exists)',
});

/** Metadata given: strings only, at most 50 keys of 1 to 40 characters, values of at most 500; on a change, a key set to "" is removed. */
export const MetadataInput = Type.Record(Type.String(), Type.String({ maxLength: METADATA_VALUE_MAX }), {
  maxProperties: METADATA_KEYS_MAX,
  propertyNames: { minLength: 1, maxLength: METADATA_KEY_MAX },
  description: 'Your data on it: strings only, at most 50 keys of 1 to 40 characters, values of at most 500; on a change, a key set to "" is removed',
});

/** Metadata answered, to its owner only. */
export const MetadataOutput = Type.Record(Type.String(), Type.String(), { description: 'Owner only' });

/** An owner's list: a page (or, for CSV, its filters), or the one object with an external id (rules §21). */
export const ExternalIdPageQuery = Type.Object({ ...PageQuery.properties, external_id: Type.Optional(ExternalId) }, { additionalProperties: true });
