// The one place errors become HTTP: the kind -> status table, problem+json
// bodies (RFC 9457), and the translation of Fastify's own errors.
import type { Socket } from 'node:net';
import { isUnavailable, isUniqueViolation } from '../db/errors.ts';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ulid } from '../shared/ulid.ts';
import { AppError, type ErrorKind, type FieldError, type ProblemCode } from '../shared/errors.ts';
import { PROBLEMS } from '../shared/problem-codes.ts';
import { AMOUNT_KEYWORD } from './validation.ts';
import { EIN_PATTERN, EIN_RULE } from '../shared/ein.ts';

export const STATUS_OF_KIND: Record<ErrorKind, number> = {
  bad_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  unprocessable: 422,
  rate_limited: 429,
  headers_too_large: 431,
  unavailable: 503,
  internal: 500,
};

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: FieldError[];
  request_id: string;
}

export function problemOf(error: AppError, requestId: string): Problem {
  const status = STATUS_OF_KIND[error.kind];
  const problem: Problem = {
    type: `/errors/${error.code}`,
    title: PROBLEMS[error.code].title,
    status,
    detail: error.message,
    code: error.code,
    request_id: requestId,
  };
  if (error.errors !== undefined) problem.errors = error.errors;
  return problem;
}

/** The problem code each answered request ended with (metrics count problems by code). */
const problemCodes = new WeakMap<FastifyRequest, string>();
export const noteProblem = (request: FastifyRequest, code: string): void => void problemCodes.set(request, code);
export const problemCodeOf = (request: FastifyRequest): string | undefined => problemCodes.get(request);

export function sendProblem(reply: FastifyReply, error: AppError): FastifyReply {
  const problem = problemOf(error, String(reply.request.id));
  noteProblem(reply.request, error.code);
  if (error.headers !== undefined) reply.headers(error.headers);
  return reply.code(problem.status).type('application/problem+json').send(JSON.stringify(problem));
}

interface AjvError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

function fieldName(e: AjvError): string {
  const path = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (e.keyword === 'additionalProperties') {
    const extra = String(e.params.additionalProperty);
    return path === '' ? extra : `${path}.${extra}`;
  }
  if (e.keyword === 'required') {
    const missing = String(e.params.missingProperty);
    return path === '' ? missing : `${path}.${missing}`;
  }
  return path === '' ? '(body)' : path;
}

/** Fields whose every error is `amount_invalid` (rules §5). */
const AMOUNT_FIELDS = new Set(['amount']);

export function fromValidation(error: FastifyError): AppError {
  const context = (error as FastifyError & { validationContext?: string }).validationContext;
  const ajvErrors = (error.validation ?? []) as AjvError[];
  const errors: FieldError[] = ajvErrors.map((e) => {
    const field = fieldName(e);
    let code: ProblemCode = 'validation_failed';
    if (e.keyword === 'additionalProperties') code = 'unknown_field';
    else if (e.keyword === AMOUNT_KEYWORD) code = e.params.code === 'amount_below_minimum' ? 'amount_below_minimum' : 'amount_invalid';
    else if (AMOUNT_FIELDS.has(field) && e.keyword !== 'required') code = 'amount_invalid';
    const message =
      e.keyword === 'additionalProperties'
        ? 'is not a known field'
        : e.keyword === 'required'
          ? 'is required'
          : e.keyword === 'enum'
            ? `must be one of: ${(e.params.allowedValues as unknown[] | undefined)?.map(String).join(', ') ?? 'the allowed values'}`
            : code === 'amount_invalid' && e.keyword === 'type'
              ? e.params.type === 'integer'
                ? 'must be whole dollars, such as 25'
                : 'must be a number of dollars, such as 25 or 25.50'
              : e.keyword === 'pattern' && e.params.pattern === EIN_PATTERN
                ? EIN_RULE
                : (e.message ?? 'is invalid');
    return { field, code, message };
  });
  // Several errors on one field from one bad value (a union's branches) say one thing.
  const seen = new Set<string>();
  const unique = errors.filter((e) => {
    const key = `${e.field}:${e.code}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  if (context === 'body') {
    const first = unique[0];
    const code = first !== undefined && unique.every((e) => e.code === first.code) ? first.code : 'validation_failed';
    const detail = unique.map((e) => `${e.field} ${e.message}`).join('; ') || 'the body is invalid';
    return new AppError('unprocessable', code, detail, { errors: unique });
  }
  const detail = unique.map((e) => `${context ?? 'parameter'} ${e.field} ${e.message}`).join('; ');
  return new AppError('bad_request', 'invalid_parameter', detail || 'a parameter is malformed', {
    errors: unique.map((e) => ({ ...e, code: 'invalid_parameter' })),
  });
}

/** Fastify's framework errors, by their codes, as our problems. */
export function fromFastify(error: FastifyError): AppError | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('unsupported_media_type', 'unsupported_media_type', 'send the body as application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'payload_too_large', 'the body is over 64 KiB');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('bad_request', 'invalid_json', 'the body is empty; send a JSON object');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('bad_request', 'invalid_json', error.message);
    default:
      if (error instanceof SyntaxError || (error.statusCode === 400 && /JSON|prototype/i.test(error.message))) {
        return new AppError('bad_request', 'invalid_json', `the body is not valid JSON: ${error.message}`);
      }
      return undefined;
  }
}

/** Any thrown error as the problem to answer with; bugs are logged here, once. */
export function toAppError(error: FastifyError, request: FastifyRequest): AppError {
  if (error instanceof AppError) return error;
  if (error.validation !== undefined) return fromValidation(error);
  const framework = fromFastify(error);
  if (framework !== undefined) return framework;
  if (isUnavailable(error)) {
    request.log.warn({ err: error }, 'database unavailable');
    return new AppError('unavailable', 'unavailable', 'the database cannot be reached; try again shortly', { headers: { 'retry-after': '1' } });
  }
  // A use case that can meet one answers it itself; one that reaches here was a race between two
  // requests for the same thing (a name, a key): the request may be sent again.
  if (isUniqueViolation(error)) {
    request.log.warn({ err: error }, 'unique violation');
    return new AppError('conflict', 'conflict', 'another request made the same thing at the same moment; send the request again');
  }
  request.log.error({ err: error }, 'unhandled error');
  return new AppError('internal', 'internal_error', 'an internal error occurred; quote the request_id when reporting it');
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => sendProblem(reply, toAppError(error, request)));
}

/**
 * Fastify's errors raised before routing (a path parameter over the length
 * limit, a malformed URL), which bypass the error handler: the same problem+json.
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.header('x-request-id', String(reply.request.id));
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') return sendProblem(reply, new AppError('uri_too_long', 'uri_too_long', 'a path segment is too long'));
  return sendProblem(reply, new AppError('bad_request', 'invalid_parameter', 'the URL is malformed'));
}

/**
 * Errors Node's HTTP parser raises before there is a request (headers or a
 * request line over the size limit, a malformed request, a timeout): a
 * problem+json written to the socket, with a request id of its own.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const kind = error.code === 'HPE_HEADER_OVERFLOW' ? 'headers_too_large' : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'request_timeout' : 'bad_request';
  const detail =
    kind === 'headers_too_large'
      ? 'the request line or headers are too large (the query string counts)'
      : kind === 'request_timeout'
        ? 'the request took too long to arrive'
        : 'the request is malformed';
  const requestId = ulid();
  const body = JSON.stringify(problemOf(new AppError(kind, kind, detail), requestId));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${STATUS_OF_KIND[kind]} ${PROBLEMS[kind].title}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
