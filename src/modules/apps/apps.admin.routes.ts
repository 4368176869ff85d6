// Operators' routes for Login with Almoner's apps (ADR 16): every app with its
// owner and connected donors; disable one at once, or enable it again.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.ts';
import { OPERATOR_TAGS as tags } from '../../http/operator.ts';
import { listAllApps, setAppEnabled } from './apps.service.ts';
import { AppsQuery, ClientIdParams, ReasonBody } from './apps.schema.ts';

export function appOperatorRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/apps', { schema: { tags, summary: 'Apps registered for Login with Almoner, newest first', querystring: AppsQuery } }, async (request) => ({
      data: await listAllApps(deps, request.query.limit ?? 50, request.query.before),
    }));
    for (const path of ['disable', 'enable'] as const) {
      app.post(
        `/apps/:client_id/${path}`,
        {
          schema: {
            tags,
            summary: path === 'disable' ? 'Disable an app: its sign-ins, tokens and id tokens are refused at once' : 'Enable a disabled app again',
            params: ClientIdParams,
            body: ReasonBody,
          },
        },
        async (request) => setAppEnabled(deps, request.params.client_id, path === 'enable', request.operator.actor, request.body?.reason),
      );
    }
  };
}
