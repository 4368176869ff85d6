// Two Ajv instances: bodies are validated strictly (no type coercion, no
// silent removal of unknown fields, every error at once); query strings and
// path parameters arrive as text and are coerced to their declared types.
import { Ajv } from 'ajv';
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
 * validators instead of compiling every route again, most of an app's start-up.
 */
type Validate = ReturnType<FastifySchemaCompiler<unknown>>;
let shared: { body: Ajv; params: Ajv; compiled: Map<string, Validate> } | undefined;
export function validatorCompiler(): FastifySchemaCompiler<unknown> {
  shared ??= { body: makeAjv(false), params: makeAjv(true), compiled: new Map() };
  const { body, params, compiled } = shared;
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? body : params;
    const key = `${httpPart === 'body' ? 'body' : 'params'} ${JSON.stringify(schema)}`;
    let validate = compiled.get(key);
    if (validate === undefined) {
      validate = ajv.compile(schema as object) as Validate;
      compiled.set(key, validate);
    }
    return validate;
  };
}
