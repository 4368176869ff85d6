// /v1/webhook_endpoints (rules §12): a user's endpoints in the caller's book.
import { Endpoint, WithSecret, EndpointFields, Attempt } from './webhooks.schema.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.ts';
import { listPage } from '../../http/page.ts';
import { EmptyObject, IsoDate, PageQuery, Paged, withProblems, IdParams } from '../../http/schemas.ts';
import * as service from './webhooks.service.ts';

const tags = ['Webhooks'];

export function webhookRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/webhook_endpoints',
      {
        schema: {
          tags,
          summary: 'Add an endpoint; the answer holds its signing secret, shown this once',
          body: Type.Object(EndpointFields, { additionalProperties: false }),
          response: withProblems({ 201: WithSecret }),
        },
      },
      async (request, reply) => {
        const made = await service.createEndpoint(deps, request.caller, request.body);
        return reply.code(201).header('location', `/v1/webhook_endpoints/${made.id}`).send(made);
      },
    );
    app.get(
      '/webhook_endpoints',
      { schema: { tags, summary: "The caller's endpoints, newest first", querystring: PageQuery, response: withProblems({ 200: Paged(Endpoint) }) } },
      async (request, reply) => listPage(request, reply, (page) => service.listEndpoints(deps, request.caller, page)),
    );
    app.get(
      '/webhook_endpoints/:id',
      { schema: { tags, summary: 'One endpoint (never its secret)', params: IdParams, response: withProblems({ 200: Endpoint }) } },
      async (request) => service.getEndpoint(deps, request.caller, request.params.id),
    );
    app.patch(
      '/webhook_endpoints/:id',
      {
        schema: {
          tags,
          summary: 'Change url, description, event_types or disabled (false enables it again)',
          params: IdParams,
          // An endpoint's app is chosen when it is made, and stays.
          body: Type.Object(
            { url: Type.Optional(EndpointFields.url), description: EndpointFields.description, event_types: EndpointFields.event_types, disabled: EndpointFields.disabled },
            { additionalProperties: false },
          ),
          response: withProblems({ 200: Endpoint }),
        },
      },
      async (request) => service.updateEndpoint(deps, request.caller, request.params.id, request.body),
    );
    app.delete(
      '/webhook_endpoints/:id',
      { schema: { tags, summary: 'Delete an endpoint; what it had still to deliver is dropped', params: IdParams, response: withProblems({ 200: EmptyObject }) } },
      async (request) => {
        await service.deleteEndpoint(deps, request.caller, request.params.id);
        return {};
      },
    );
    app.post(
      '/webhook_endpoints/:id/rotate_secret',
      {
        schema: {
          tags,
          summary: 'A new secret, shown this once; the old one keeps signing beside it for 24 hours',
          params: IdParams,
          response: withProblems({ 200: Type.Object({ secret: Type.String(), previous_secret_expires_at: IsoDate }) }),
        },
      },
      async (request) => service.rotateSecret(deps, request.caller, request.params.id),
    );
    app.get(
      '/webhook_endpoints/:id/attempts',
      {
        schema: {
          tags,
          summary: 'Delivery attempts to this endpoint, newest first: status, response time, error',
          params: IdParams,
          querystring: PageQuery,
          response: withProblems({ 200: Paged(Attempt) }),
        },
      },
      async (request, reply) => listPage(request, reply, (page) => service.listAttempts(deps, request.caller, request.params.id, page)),
    );
    app.post(
      '/webhook_endpoints/:id/test',
      {
        schema: { tags, summary: 'Send a webhook.test event to this endpoint now', params: IdParams, response: withProblems({ 202: Type.Object({ message_id: Type.String() }) }) },
      },
      async (request, reply) => reply.code(202).send(await service.sendTestEvent(deps, request.caller, request.params.id)),
    );
  };
}
