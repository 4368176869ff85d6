// Operators' routes for due diligence (/admin/v1): the lists in force, and the
// close name matches against the sanctions list, each decided once (rules §16).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.ts';
import { IdParams } from '../../http/schemas.ts';
import { OPERATOR_TAGS as tags } from '../../http/operator.ts';
import { decideReview, listsInForce, pendingReviews } from './diligence.service.ts';
import { ReviewDecisionBody } from './diligence.schema.ts';

export function diligenceOperatorRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/diligence_lists', { schema: { tags, summary: 'The due diligence lists in force: each kind, its date and entries' } }, async () => ({
      items: await listsInForce(deps),
    }));
    app.get('/sanction_reviews', { schema: { tags, summary: 'Close name matches against the sanctions list waiting for a decision, oldest first' } }, async () => ({
      items: await pendingReviews(deps),
    }));
    for (const [action, decision] of [
      ['clear', 'cleared'],
      ['confirm', 'confirmed'],
    ] as const) {
      app.post(
        `/sanction_reviews/:id/${action}`,
        {
          schema: {
            tags,
            summary: action === 'clear' ? 'Not the listed party: the organisation may be paid (audited)' : 'It is the listed party: refused from now on (audited)',
            params: IdParams,
            body: ReviewDecisionBody,
          },
        },
        async (request) => decideReview(deps, request.params.id, decision, request.body.note, request.operator.actor),
      );
    }
  };
}
