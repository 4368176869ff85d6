// Two Ajv instances: bodies are validated strictly (no type coercion, no
// silent removal of unknown fields, every error at once); query strings and
// path parameters arrive as text and are coerced to their declared types.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsImport from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { centsToDollars, parseDollars } from '../shared/money.ts';

// ajv-formats is CommonJS; its default export arrives wrapped under Node's ESM loader.
const addFormats = ((addFormatsImport as unknown as { default?: unknown }).default ?? addFormatsImport) as (ajv: Ajv) => Ajv;

/**
 * `x-amount-min-cents`: a dollar amount with at most 2 decimals, at most
 * $10,000,000, and at least the given cents. Checked here so that amount
 * problems are listed with every other field problem in one 422.
 */
export const AMOUNT_KEYWORD = 'x-amount-min-cents';

function amountKeyword(ajv: Ajv): void {
  const validate = (minCents: number, data: number): boolean => {
    const parsed = parseDollars(data);
    const self = validate as unknown as { errors: unknown[] };
    if (!parsed.ok) {
      self.errors = [{ keyword: AMOUNT_KEYWORD, message: parsed.reason, params: { code: 'amount_invalid' } }];
      return false;
    }
    if (parsed.cents < minCents) {
      self.errors = [{ keyword: AMOUNT_KEYWORD, message: `must be at least ${centsToDollars(minCents)}`, params: { code: 'amount_below_minimum' } }];
      return false;
    }
    return true;
  };
  ajv.addKeyword({ keyword: AMOUNT_KEYWORD, type: 'number', schemaType: 'number', errors: true, validate });
}

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: !coerce,
    coerceTypes: coerce ? 'array' : false,
    removeAdditional: false,
    useDefaults: true,
    strict: false,
  });
  addFormats(ajv);
  amountKeyword(ajv);
  return ajv;
}

/**
 * The compiler every app in this process uses. Its two Ajv instances are made once and shared, and
 * what they compiled is kept by the schema's text (many routes build their schemas as they
 * register): a second app (another listener, a test's next database) reuses the first one's
 * validators instead of compiling every route again. Each is compiled at its route's first
 * request, not at start: compiling every route's was most of a start (ADR 31);
 * `compileEveryValidator` compiles those not yet used (a test does, for every route).
 */
type Validate = ReturnType<FastifySchemaCompiler<unknown>>;
interface Lazy {
  validate: Validate;
  /** Compiles it if it is not yet; true when this call did. */
  compile: () => boolean;
}
let shared: { body: Ajv; params: Ajv; compiled: Map<string, Lazy> } | undefined;
export function validatorCompiler(): FastifySchemaCompiler<unknown> {
  shared ??= { body: makeAjv(false), params: makeAjv(true), compiled: new Map() };
  const { body, params, compiled } = shared;
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? body : params;
    const key = `${httpPart === 'body' ? 'body' : 'params'} ${JSON.stringify(schema)}`;
    let lazy = compiled.get(key);
    if (lazy === undefined) {
      const numeric = httpPart === 'body' ? undefined : numericFields(schema);
      lazy = onFirstUse(() => ajv.compile(schema as object), numeric);
      compiled.set(key, lazy);
    }
    return lazy.validate;
  };
}

/**
 * The fields of a path's or a query string's schema that are numbers, with the text each must be.
 * Ajv coerces any text JavaScript reads as a number (`0x10` is 16, `1e3` is 1000, ` 7` is 7): a
 * request for `/v1/donations/0x10` would be answered for donation 16. Such text is refused.
 */
function numericFields(schema: unknown): Map<string, NumericType> | undefined {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties;
  if (properties === undefined) return undefined;
  const fields = new Map<string, NumericType>();
  for (const [name, property] of Object.entries(properties)) {
    if (property.type === 'integer' || property.type === 'number') fields.set(name, property.type);
  }
  return fields.size === 0 ? undefined : fields;
}

type NumericType = 'integer' | 'number';

/** The text a number of each type must be: decimal digits, a sign, and for a number a fraction. */
const DECIMAL: Readonly<Record<NumericType, RegExp>> = { integer: /^-?[0-9]+$/, number: /^-?[0-9]+(\.[0-9]+)?$/ };

/** The first numeric field whose text is not a plain decimal number, as Ajv reports a wrong type. */
function notDecimal(data: unknown, fields: ReadonlyMap<string, NumericType>): ValidateFunction['errors'] {
  if (typeof data !== 'object' || data === null) return null;
  for (const [name, type] of fields) {
    const value = (data as Record<string, unknown>)[name];
    if (typeof value === 'string' && !DECIMAL[type].test(value)) {
      return [{ instancePath: `/${name}`, schemaPath: `#/properties/${name}/type`, keyword: 'type', params: { type }, message: `must be ${type}` }];
    }
  }
  return null;
}

/** A validator compiled when first called; Fastify reads a failed validation's `errors` from it, as from Ajv's own. */
function onFirstUse(compile: () => ValidateFunction, numeric?: ReadonlyMap<string, NumericType>): Lazy {
  let real: ValidateFunction | undefined;
  const validate = Object.assign(
    (data: unknown) => {
      real ??= compile();
      const refused = numeric === undefined ? null : notDecimal(data, numeric);
      if (refused !== null) {
        validate.errors = refused;
        return false;
      }
      const valid = real(data);
      validate.errors = real.errors;
      return valid;
    },
    { errors: null as ValidateFunction['errors'] },
  );
  return {
    validate,
    compile: () => {
      if (real !== undefined) return false;
      real = compile();
      return true;
    },
  };
}

/** What a compileEvery* call did: how many it built now, of how many this process's apps registered. */
export interface Compiled {
  compiled: number;
  total: number;
}

/** Compiles every validator the apps of this process registered and no request has used yet; throws on a schema Ajv refuses. */
export function compileEveryValidator(): Compiled {
  let compiled = 0;
  for (const lazy of shared?.compiled.values() ?? []) if (lazy.compile()) compiled += 1;
  return { compiled, total: shared?.compiled.size ?? 0 };
}
