// The operator API under /admin/v1: thin adapters over the same services the
// CLI uses, authenticated by an operator token (`Authorization: Bearer
// alm_admin_...`). Each module's operator routes live beside it
// (`<module>.admin.routes.ts`); app.ts hands them to this plugin, which puts
// them behind the token. Here: the audit log, operator tokens and the check.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.ts';
import { PageQuery, Id, IdParams } from '../../http/schemas.ts';
import { BookQuery, bookOf, OPERATOR_TAGS as tags, type OperatorRoutes } from '../../http/operator.ts';
import { pageRequest } from '../../shared/page.ts';
import { adminTokens, auditLog, requireOperator, revokeAdminTokenAudited } from './admin.service.ts';
import { formatCheck, runCheck } from '../check/index.ts';

export function adminRoutes(deps: Deps, modules: readonly OperatorRoutes[]): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.addHook('onRequest', async (request) => {
      request.operator = await requireOperator(deps, request.headers.authorization);
    });
    for (const routes of modules) await app.register(routes(deps));

    app.get(
      '/audit',
      {
        schema: {
          tags,
          summary: "The audit log, newest first (the live book's; ?book=test for the sandbox's)",
          querystring: Type.Composite([PageQuery, BookQuery, Type.Object({ object_type: Type.Optional(Type.String()), object_id: Type.Optional(Id) })]),
        },
      },
      async (request) => {
        const page = pageRequest(request.query);
        const { object_type, object_id } = request.query;
        return { items: await auditLog(deps, bookOf(request), { ...(object_type === undefined ? {} : { object_type }), ...(object_id === undefined ? {} : { object_id }) }, page) };
      },
    );

    app.get('/tokens', { schema: { tags, summary: 'Operator tokens: state (active, expired, revoked), expiry and last use; never the token' } }, async () => ({
      items: await adminTokens(deps),
    }));

    app.post(
      '/tokens/:id/revoke',
      {
        schema: {
          tags,
          summary: 'Revoke an operator token at once (audited); a token may revoke itself',
          params: IdParams,
        },
      },
      async (request) => {
        await revokeAdminTokenAudited(deps, request.params.id, request.operator.actor);
        return {};
      },
    );

    app.get('/check', { schema: { tags, summary: 'Run every ledger invariant (as `almoner check`)' } }, async (_request, reply) => {
      const results = await runCheck(deps);
      const { ok } = formatCheck(results);
      return reply.code(ok ? 200 : 500).send({ ok, results });
    });
  };
}
