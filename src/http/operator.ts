// What every operator route under /admin/v1 shares: the operator a request
// acts as (set by the admin module's hook from `Authorization: Bearer
// alm_admin_...`), the OpenAPI tag, and the book it acts in. Operators act in
// the live book: a sandbox object is not found unless the request asks for the
// sandbox with `?book=test` (rules §14).
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../deps.ts';
import type { Operator } from '../modules/admin/index.ts';
import { BOOKS, type Book } from '../shared/book.ts';
import { StringEnum } from './schemas.ts';

declare module 'fastify' {
  interface FastifyRequest {
    operator: Operator;
  }
}

/** A module's operator routes: mounted under /admin/v1 behind the operator's token (app.ts). */
export type OperatorRoutes = (deps: Deps) => FastifyPluginAsyncTypebox;

export const OPERATOR_TAGS = ['Operators'];

export const BookQuery = Type.Object(
  { book: Type.Optional(StringEnum(BOOKS, { description: "live (default) or test: the sandbox twins' book" })) },
  { additionalProperties: false },
);

export function bookOf(request: { query: unknown }): Book {
  return (request.query as { book?: Book } | undefined)?.book ?? 'live';
}
