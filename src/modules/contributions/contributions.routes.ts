import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { DeclaredContribution, UpdateContributionBody } from './contributions.schema.ts';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.ts';
import { listPage } from '../../http/page.ts';
import { ExternalIdPageQuery, ExternalId, MetadataInput, Paged, withProblems, IdParams } from '../../http/schemas.ts';
import { CONTRIBUTION_STATUSES } from './contributions.ts';
import { CONTRIBUTION_CSV_HEADER, exportContributions, listContributions } from './contributions.service.ts';
import { exportFilters, sendCsv, wantsCsv } from '../../http/csv.ts';
import { statementDownload, statementPeriod, taxStatement } from './statements.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { cancelContribution, contributionsByExternalId, declareContribution, declaredForm, updateContributionMetadata } from './contributions.declarations.ts';
import { receiptDownload, receiptOf } from './contributions.receipts.ts';
import { sendPdf, wantsPdf } from '../../http/pdf.ts';
import { sendAnswer, type Answer, type Replayers } from '../../http/idempotency.ts';
import { EmptyObject } from '../../http/schemas.ts';

/** A new declaration's answer: its POST's, and a replay's of the same Idempotency-Key. */
function declared(c: { id: number }): Answer {
  return { status: 201, location: `/v1/contributions/${c.id}`, body: c };
}

export const contributionReplayers: Replayers = {
  contribution: async (deps, caller, id) => declared(await declaredForm(deps, caller, Number(id))),
};

export function contributionRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/contributions',
      {
        schema: {
          tags: ['Contributions'],
          summary: "The caller's contributions, newest first; ?external_id= finds the one with your id",
          querystring: ExternalIdPageQuery,
          response: withProblems({ 200: Paged(Type.Ref('Contribution')) }),
        },
      },
      async (request, reply) => {
        // rules §13: Accept: text/csv gives every row matching ?from=&to=&status=, streamed.
        if (wantsCsv(request)) {
          const filters = exportFilters(request.query as Record<string, unknown>, CONTRIBUTION_STATUSES);
          return sendCsv(reply, 'contributions.csv', CONTRIBUTION_CSV_HEADER, exportContributions(deps, request.caller, filters));
        }
        if (request.query.external_id !== undefined) return contributionsByExternalId(deps, request.caller, request.query.external_id);
        return listPage(request, reply, (page) => listContributions(deps, request.caller, page));
      },
    );

    app.post(
      '/contributions',
      {
        schema: {
          tags: ['Contributions'],
          summary: 'Declare a contribution: what you will send; answers with where to send it and the reference that ties the money to it',
          body: Type.Object(
            {
              type: Type.String({
                description:
                  'check_payment, wire_payment, bank_account_scheduled_deposit, stock_payment, crypto_payment, check_daf_transfer, wire_daf_transfer, company_payment or third_party_payment',
              }),
              amount: Type.Optional(Type.Unknown({ description: 'Cash: US dollars, at most 2 decimals, at least 1' })),
              units: Type.Optional(Type.Unknown({ description: 'Stock and crypto: how many units, up to 8 decimals' })),
              symbol: Type.Optional(Type.Unknown({ description: 'Stock and crypto: the ticker or token (AAPL, BTC)' })),
              external_id: Type.Optional(ExternalId),
              metadata: Type.Optional(MetadataInput),
            },
            { additionalProperties: false },
          ),
          response: withProblems({ 201: DeclaredContribution }),
        },
      },
      async (request, reply) => sendAnswer(reply, declared(await declareContribution(deps, request.caller, request.body, request.idempotency))),
    );

    app.get(
      '/contributions/:id',
      {
        schema: {
          tags: ['Contributions'],
          summary: "One of the caller's contributions, with its reference and, while it waits, the instructions",
          params: IdParams,
          response: withProblems({ 200: DeclaredContribution }),
        },
      },
      async (request) => declaredForm(deps, request.caller, request.params.id),
    );

    app.get(
      '/contributions/:id/receipt',
      {
        schema: {
          tags: ['Contributions'],
          summary: "A succeeded contribution's receipt (rules §13): JSON, or a printable PDF with Accept: application/pdf",
          params: IdParams,
        },
      },
      async (request, reply) => {
        const receipt = await receiptOf(deps, request.caller, request.params.id);
        return wantsPdf(request) ? sendPdf(reply, await receiptDownload(receipt)) : receipt;
      },
    );

    // Tax statements: a calendar year, or any period for a fiscal year that is not one; JSON, or PDF with Accept: application/pdf.
    const sendStatement = async (request: FastifyRequest, reply: FastifyReply, statement: Awaited<ReturnType<typeof taxStatement>>) => {
      return wantsPdf(request) ? sendPdf(reply, await statementDownload(deps, request.caller, statement)) : statement;
    };
    const Period = Type.Object({ from: Type.Optional(Type.String()), to: Type.Optional(Type.String()) });
    const statementSummary = 'Contributions of the period (deductible, with receipt numbers) and the grants made from the fund (informational)';
    app.get(
      '/tax_statements/:year',
      { schema: { tags: ['Contributions'], summary: `${statementSummary}: a calendar year`, params: Type.Object({ year: Type.Integer() }), querystring: Period } },
      async (request, reply) => sendStatement(request, reply, await taxStatement(deps, request.caller, statementPeriod(request.params.year, request.query.from, request.query.to))),
    );
    app.get(
      '/tax_statements',
      { schema: { tags: ['Contributions'], summary: `${statementSummary}: ?from=YYYY-MM-DD&to=YYYY-MM-DD`, querystring: Period } },
      async (request, reply) =>
        sendStatement(request, reply, await taxStatement(deps, request.caller, statementPeriod(undefined, request.query.from ?? '', request.query.to ?? ''))),
    );

    app.patch(
      '/contributions/:id',
      {
        schema: {
          tags: ['Contributions'],
          summary: 'Change a contribution\'s metadata (a key set to "" is removed)',
          params: IdParams,
          body: UpdateContributionBody,
          response: withProblems({ 200: DeclaredContribution }),
        },
      },
      async (request) => updateContributionMetadata(deps, request.caller, request.params.id, request.body.metadata),
    );

    app.delete(
      '/contributions/:id',
      {
        schema: {
          tags: ['Contributions'],
          summary: 'Cancel a declared contribution while nothing has arrived (it becomes failed)',
          params: IdParams,
          response: withProblems({ 200: EmptyObject }),
        },
      },
      async (request) => {
        await cancelContribution(deps, request.caller, request.params.id);
        return {};
      },
    );
  };
}
