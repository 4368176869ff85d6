import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CreatedApiKey } from './keys.schema.ts';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.ts';
import { EmptyObject, Paged, StringEnum, withProblems, IdParams } from '../../http/schemas.ts';
import { toPage } from '../../shared/page.ts';
import { AppError } from '../../shared/errors.ts';
import { createKeyForOwner } from '../users/index.ts';
import { listKeys, revokeKey } from './keys.service.ts';

export function keyRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['API keys'];

    app.post(
      '/api_keys',
      {
        schema: {
          tags,
          summary: 'Create an API key for the caller; the full key appears in this response only',
          body: Type.Object(
            {
              name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
              mode: Type.Optional(
                StringEnum(['live', 'test'] as const, { description: 'test: a sandbox key (alm_test_...) for your sandbox twin; default: the mode of the calling key' }),
              ),
            },
            { additionalProperties: false },
          ),
          response: withProblems({ 201: CreatedApiKey }),
        },
      },
      async (request, reply) => {
        const mode = request.body.mode ?? (request.caller.mode === 'test' ? 'test' : 'live');
        if (mode === 'live' && request.caller.mode === 'test') throw new AppError('forbidden', 'forbidden', 'a sandbox key cannot create live keys');
        // A test caller's user is its twin already, and a twin's twin is itself.
        const created = await createKeyForOwner(deps, request.caller.actor_id, request.body.name, mode);
        return reply.code(201).header('location', `/v1/api_keys/${created.id}`).send(created);
      },
    );

    app.get(
      '/api_keys',
      {
        schema: { tags, summary: "The caller's active keys", response: withProblems({ 200: Paged(Type.Ref('ApiKey')) }) },
      },
      async (request) => {
        const keys = await listKeys(deps, request.caller.actor_id);
        // Every active key on one page: a user has a handful, not thousands.
        return toPage(keys, keys.length, { page: 1, per_page: Math.max(1, keys.length) });
      },
    );

    app.delete(
      '/api_keys/:id',
      {
        schema: {
          tags,
          summary: "Revoke one of the caller's keys; it stops working on the next request",
          params: IdParams,
          response: withProblems({ 200: EmptyObject }),
        },
      },
      async (request) => {
        await revokeKey(deps, request.caller.actor_id, request.params.id);
        return {};
      },
    );
  };
}
