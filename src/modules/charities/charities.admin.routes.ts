// Operators' routes for charities' claims (/admin/v1/charity_claims, rules §18):
// the claims waiting, and each approved or refused once.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.ts';
import { IdParams } from '../../http/schemas.ts';
import { OPERATOR_TAGS as tags } from '../../http/operator.ts';
import { decideClaim, listClaims } from './charities.service.ts';
import { ClaimDecisionBody, ClaimsQuery } from './charities.schema.ts';

export function charityOperatorRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/charity_claims',
      { schema: { tags, summary: 'Claims to act for an organisation, oldest first: by default the confirmed ones waiting for a decision', querystring: ClaimsQuery } },
      async (request) => ({ items: await listClaims(deps, request.query.status) }),
    );
    for (const [action, decision] of [
      ['approve', 'approved'],
      ['reject', 'rejected'],
    ] as const) {
      app.post(
        `/charity_claims/:id/${action}`,
        {
          schema: {
            tags,
            summary:
              action === 'approve'
                ? 'The claimant acts for the organisation: sees its payments, gives its bank details (audited, the claimant told)'
                : 'The claim is refused (audited, the claimant told)',
            params: IdParams,
            body: ClaimDecisionBody,
          },
        },
        async (request) => decideClaim(deps, request.params.id, decision, request.body.note, request.operator.actor),
      );
    }
  };
}
