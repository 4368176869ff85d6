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
      lazy = onFirstUse(() => ajv.compile(schema as object));
      compiled.set(key, lazy);
    }
    return lazy.validate;
  };
}

/** A validator compiled when first called; Fastify reads a failed validation's `errors` from it, as from Ajv's own. */
function onFirstUse(compile: () => ValidateFunction): Lazy {
  let real: ValidateFunction | undefined;
  const validate = Object.assign(
    (data: unknown) => {
      real ??= compile();
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
