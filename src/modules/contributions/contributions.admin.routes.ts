// Operators' routes for contributions (/admin/v1/contributions): record one,
// move it along, find declarations waiting for their money and record what
// arrived, correct the value received or a receipt.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.ts';
import { IdParams } from '../../http/schemas.ts';
import { BookQuery, bookOf, OPERATOR_TAGS as tags } from '../../http/operator.ts';
import { fieldErrors } from '../../shared/errors.ts';
import { centsToDollars, isDecimal8 } from '../../shared/money.ts';
import { fundOfUser } from '../users/index.ts';
import { advanceContribution, recordContribution } from './contributions.service.ts';
import { declarationsAwaitingMoney, receiveDeclared } from './contributions.declarations.ts';
import { correctReceipt } from './contributions.receipts.ts';
import { correctReceivedValue } from './contributions.corrections.ts';
import { AdvanceBody, AwaitingQuery, CorrectionBody, ReceivedBody, RecordBody, ValueCorrected, ValueCorrectionBody } from './contributions.schema.ts';

/** A JSON number or string as exact decimal text (numbers print their shortest exact form). */
function decimalText(field: string, value: string | number): string {
  const text = typeof value === 'number' ? String(value) : value;
  if (!isDecimal8(text)) throw fieldErrors([{ field, code: 'validation_failed', message: 'must be a decimal with at most 8 places' }]);
  return text;
}

export function contributionOperatorRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post('/contributions', { schema: { tags, summary: 'Record a contribution', querystring: BookQuery, body: RecordBody } }, async (request, reply) => {
      const b = request.body;
      const id = await recordContribution(
        deps,
        {
          user_id: b.user_id,
          fund_id: (await fundOfUser(deps, bookOf(request), b.user_id)).id,
          type: b.type,
          units: decimalText('units', b.units),
          valuation: decimalText('valuation', b.valuation),
          currency: b.currency,
          frequency: b.frequency ?? 'OneTime',
          status: b.status ?? 'pending',
        },
        request.operator.actor,
      );
      return reply.code(201).send({ id });
    });

    app.post(
      '/contributions/:id/advance',
      { schema: { tags, summary: 'Move a contribution along its state machine', params: IdParams, querystring: BookQuery, body: AdvanceBody } },
      async (request) => {
        await advanceContribution(deps, bookOf(request), request.params.id, request.body.status, request.operator.actor);
        return {};
      },
    );

    app.get(
      '/contributions/awaiting',
      { schema: { tags, summary: 'Declared contributions waiting for their money, oldest first; ?reference= finds one', querystring: AwaitingQuery } },
      async (request) => ({ items: await declarationsAwaitingMoney(deps, bookOf(request), request.query.reference) }),
    );

    app.post(
      '/contributions/:id/receive',
      {
        schema: {
          tags,
          summary: 'Record what arrived for a declared contribution (units, valuation and its source); it becomes pending with that money',
          params: IdParams,
          querystring: BookQuery,
          body: ReceivedBody,
        },
      },
      async (request) => {
        await receiveDeclared(deps, bookOf(request), request.params.id, request.body, request.operator.actor);
        return {};
      },
    );

    app.post(
      '/contributions/:id/value_corrections',
      {
        schema: {
          tags,
          summary: 'Correct the value recorded for money received: the difference moved by its own journal entry, a corrected receipt, audited',
          params: IdParams,
          querystring: BookQuery,
          body: ValueCorrectionBody,
          response: { 201: ValueCorrected },
        },
      },
      async (request, reply) => {
        const done = await correctReceivedValue(deps, bookOf(request), request.params.id, request.body, request.operator.actor);
        return reply.code(201).send({ amount: centsToDollars(done.amount_cents), previous_amount: centsToDollars(done.previous_cents), receipt: done.receipt });
      },
    );

    app.post(
      '/contributions/:id/receipt/corrections',
      {
        schema: {
          tags,
          summary: "Correct a contribution's receipt: a new receipt from the contribution and donor as they are now, naming the one it replaces and why; both remain",
          params: IdParams,
          querystring: BookQuery,
          body: CorrectionBody,
        },
      },
      async (request, reply) => reply.code(201).send({ receipt: await correctReceipt(deps, bookOf(request), request.params.id, request.body.reason, request.operator.actor) }),
    );
  };
}
