// Domain errors: a `kind` (what went wrong, mapped to an HTTP status in one
// table in http/errors.ts) and a stable `code` that clients match on, one of
// the catalogue in problem-codes.ts (each documented at /errors/<code>).
import type { ProblemCode } from './problem-codes.ts';

export type { ProblemCode };
export type ErrorKind =
  | 'bad_request'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'request_timeout'
  | 'conflict'
  | 'payload_too_large'
  | 'uri_too_long'
  | 'unsupported_media_type'
  | 'unprocessable'
  | 'rate_limited'
  | 'headers_too_large'
  | 'unavailable'
  | 'internal';

export interface FieldError {
  field: string;
  code: ProblemCode;
  message: string;
}

export class AppError extends Error {
  override name = 'AppError';
  readonly kind: ErrorKind;
  readonly code: ProblemCode;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string> | undefined;
  constructor(kind: ErrorKind, code: ProblemCode, detail: string, options?: { errors?: FieldError[]; headers?: Record<string, string> }) {
    super(detail);
    this.kind = kind;
    this.code = code;
    this.errors = options?.errors;
    this.headers = options?.headers;
  }
}

export const notFound = (code: ProblemCode, detail: string) => new AppError('not_found', code, detail);
export const conflict = (code: ProblemCode, detail: string) => new AppError('conflict', code, detail);
export const unprocessable = (code: ProblemCode, detail: string, errors?: FieldError[]) =>
  new AppError('unprocessable', code, detail, errors === undefined ? undefined : { errors });
export const badRequest = (code: ProblemCode, detail: string, errors?: FieldError[]) => new AppError('bad_request', code, detail, errors === undefined ? undefined : { errors });

/** A file refused whole (422 `code`): its first 20 problems, each by its line. */
export function fileRefused(code: ProblemCode, detail: string, problems: ReadonlyArray<{ line: number; reason: string }>): AppError {
  return new AppError('unprocessable', code, detail, { errors: problems.slice(0, 20).map((p) => ({ field: `line ${p.line}`, code, message: p.reason })) });
}

/** A 422 listing every field problem at once; the problem's code is the first field's. */
export function fieldErrors(errors: FieldError[]): AppError {
  const first = errors[0];
  if (first === undefined) throw new Error('fieldErrors needs at least one error');
  const code = errors.every((e) => e.code === first.code) ? first.code : 'validation_failed';
  const detail = errors.map((e) => `${e.field} ${e.message}`).join('; ');
  return new AppError('unprocessable', code, detail, { errors });
}
