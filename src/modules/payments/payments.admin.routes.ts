// Operators' routes for paying charities (/admin/v1/payment_runs, /payments,
// /payee_accounts; rules §17): open a run, review it, export its files, submit
// it, record each payment's outcome.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.ts';
import { EmptyObject, IdParams } from '../../http/schemas.ts';
import { BookQuery, bookOf, OPERATOR_TAGS as tags } from '../../http/operator.ts';
import { sendCsv } from '../../http/csv.ts';
import { getRun, listRuns, openRun, settle } from './payments.service.ts';
import { achFileOf, checkRows, CHECK_REGISTER_HEADER, POSITIVE_PAY_HEADER } from './payments.files.ts';
import { approveRun, submitRun, withdrawRun } from './payments.submit.ts';
import { listExceptions, recordAchReturns, recordPaidChecks, resolveException } from './payments.outcomes.ts';
import { approvePayeeAccount, setPayeeAccount } from './payments.payees.ts';
import { LETTERS_PER_FILE, remittance, runRemittances } from './payments.remittances.ts';
import {
  OpenRunBody,
  RemittancesQuery,
  WithdrawRunBody,
  PaidChecksBody,
  PayeeAccountBody,
  ResolveExceptionBody,
  ReturnBody,
  ReturnsFileBody,
  VoidBody,
} from './payments.schema.ts';

export function paymentOperatorRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get('/payment_runs', { schema: { tags, summary: 'Payment runs, newest first', querystring: BookQuery } }, async (request) => ({
      items: await listRuns(deps, bookOf(request)),
    }));

    app.post(
      '/payment_runs',
      {
        schema: {
          tags,
          summary:
            "Open the payment run of a date: every approved donation of a still-eligible organisation joins it, one payment per organisation (ACH to bank details in force, else a check); ineligible organisations' donations are rejected with their money back; ones under review wait",
          querystring: BookQuery,
          body: OpenRunBody,
        },
      },
      async (request, reply) => reply.code(201).send(await openRun(deps, bookOf(request), request.body.pay_date, request.operator.actor)),
    );

    app.get(
      '/payment_runs/:id',
      { schema: { tags, summary: 'A payment run with its payments (bank accounts masked)', params: IdParams, querystring: BookQuery } },
      async (request) => getRun(deps, bookOf(request), request.params.id),
    );

    app.get(
      '/payment_runs/:id/ach',
      { schema: { tags, summary: "The run's NACHA file: a CCD batch, one entry and addenda per ACH payment", params: IdParams, querystring: BookQuery } },
      async (request, reply) =>
        reply
          .type('text/plain; charset=us-ascii')
          .header('content-disposition', `attachment; filename="run-${request.params.id}.ach"`)
          .send(await achFileOf(deps, bookOf(request), request.params.id)),
    );

    // The run's checks as CSV: the register to print and mail them, the positive-pay file for the bank.
    for (const [path, form, header, what] of [
      ['checks', 'register', CHECK_REGISTER_HEADER, "The run's check register as CSV"],
      ['positive_pay', 'positive_pay', POSITIVE_PAY_HEADER, "The run's positive-pay file for the bank, as CSV"],
    ] as const) {
      app.get(`/payment_runs/:id/${path}`, { schema: { tags, summary: what, params: IdParams, querystring: BookQuery } }, async (request, reply) => {
        await getRun(deps, bookOf(request), request.params.id);
        return sendCsv(reply, `run-${request.params.id}-${path.replace('_', '-')}.csv`, header, checkRows(deps, bookOf(request), request.params.id, form));
      });
    }

    app.get(
      '/payment_runs/:id/remittances',
      {
        schema: {
          tags,
          summary: `The run's remittance advice: one letter per payment, in files of ${LETTERS_PER_FILE} letters (?part=N; X-Parts says how many, Link the next)`,
          params: IdParams,
          querystring: RemittancesQuery,
        },
      },
      async (request, reply) => {
        // A client that goes away stops the letters being drawn: nothing is left computing for no one.
        const gone = new AbortController();
        const stop = () => {
          if (!reply.raw.writableFinished) gone.abort(new Error('the client went away'));
        };
        reply.raw.once('close', stop);
        try {
          const { id } = request.params;
          const file = await runRemittances(deps, bookOf(request), id, { signal: gone.signal, ...(request.query.part === undefined ? {} : { part: request.query.part }) });
          const name = file.parts === 1 ? `run-${id}-remittances.pdf` : `run-${id}-remittances-${file.part}-of-${file.parts}.pdf`;
          if (file.part < file.parts) reply.header('link', `</admin/v1/payment_runs/${id}/remittances?book=${bookOf(request)}&part=${file.part + 1}>; rel="next"`);
          return await reply
            .type('application/pdf')
            .header('x-parts', String(file.parts))
            .header('content-disposition', `attachment; filename="${name}"`)
            .send(Buffer.from(file.pdf));
        } finally {
          reply.raw.off('close', stop);
        }
      },
    );

    app.get('/payments/:id/remittance', { schema: { tags, summary: "A payment's remittance advice (PDF)", params: IdParams, querystring: BookQuery } }, async (request, reply) =>
      reply
        .type('application/pdf')
        .header('content-disposition', `attachment; filename="payment-${request.params.id}-remittance.pdf"`)
        .send(Buffer.from(await remittance(deps, bookOf(request), request.params.id))),
    );

    app.post(
      '/payment_runs/:id/approve',
      {
        schema: {
          tags,
          summary: 'Approve an open run for submission: a second operator, not the one who opened it (needed when PAYMENTS_TWO_OPERATORS is on)',
          params: IdParams,
          querystring: BookQuery,
          body: EmptyObject,
        },
      },
      async (request) => approveRun(deps, bookOf(request), request.params.id, request.operator.actor),
    );

    app.post(
      '/payment_runs/:id/withdraw',
      {
        schema: {
          tags,
          summary: 'Withdraw an open run: its payments are withdrawn and its donations wait, approved, for another run',
          params: IdParams,
          querystring: BookQuery,
          body: WithdrawRunBody,
        },
      },
      async (request) => withdrawRun(deps, bookOf(request), request.params.id, request.operator.actor, request.body.reason),
    );

    app.post(
      '/payment_runs/:id/submit',
      {
        schema: {
          tags,
          summary:
            'Submit the run: each organisation is screened again (one that may no longer receive is withheld, its donations rejected; one under review or whose bank details changed is left for another run), the rest are sent, their donations completed (ACH) or mailed (checks)',
          params: IdParams,
          querystring: BookQuery,
          body: EmptyObject,
        },
      },
      async (request) => submitRun(deps, bookOf(request), request.params.id, request.operator.actor),
    );

    app.post(
      '/payments/:id/return',
      { schema: { tags, summary: "An ACH payment came back: every grant's money goes back to its donor", params: IdParams, querystring: BookQuery, body: ReturnBody } },
      async (request) => settle(deps, bookOf(request), request.params.id, 'return', { actor: request.operator.actor, returnCode: request.body.return_code }),
    );
    app.post(
      '/payments/returns',
      {
        schema: {
          tags,
          summary: "Record the returns a bank's NACHA return file lists: each returned payment's grants go back to their donors",
          querystring: BookQuery,
          body: ReturnsFileBody,
        },
      },
      async (request) => ({ items: await recordAchReturns(deps, bookOf(request), request.body.file, request.operator.actor) }),
    );
    app.post(
      '/payments/checks_paid',
      {
        schema: {
          tags,
          summary: "Record the checks a bank's paid-checks file lists (CSV: check_number, amount, paid_date): each check is cashed and its grants completed",
          querystring: BookQuery,
          body: PaidChecksBody,
        },
      },
      async (request) => ({ items: await recordPaidChecks(deps, bookOf(request), request.body.file, request.operator.actor) }),
    );
    app.post('/payments/:id/cash', { schema: { tags, summary: 'A check was cashed', params: IdParams, querystring: BookQuery, body: EmptyObject } }, async (request) =>
      settle(deps, bookOf(request), request.params.id, 'cash', { actor: request.operator.actor }),
    );
    app.post(
      '/payments/:id/void',
      { schema: { tags, summary: "Void a check: every grant's money goes back to its donor", params: IdParams, querystring: BookQuery, body: VoidBody } },
      async (request) => settle(deps, bookOf(request), request.params.id, 'void', { actor: request.operator.actor, reason: request.body.reason }),
    );
    app.get('/payment_exceptions', { schema: { tags, summary: 'Checks the bank paid after they were voided: open ones first', querystring: BookQuery } }, async (request) => ({
      items: await listExceptions(deps, bookOf(request)),
    }));
    app.post(
      '/payment_exceptions/:id/resolve',
      {
        schema: {
          tags,
          summary: 'Resolve an exception once: recovered from the bank, or charged to the sponsor’s own account',
          params: IdParams,
          querystring: BookQuery,
          body: ResolveExceptionBody,
        },
      },
      async (request) => {
        await resolveException(deps, bookOf(request), request.params.id, request.body, request.operator.actor);
        return { resolved: true };
      },
    );

    app.post(
      '/payee_accounts',
      { schema: { tags, summary: "Record an organisation's bank details for ACH (sealed at rest, shown masked; ACH waits out the cooling-off period)", body: PayeeAccountBody } },
      async (request, reply) =>
        reply.code(201).send(await setPayeeAccount(deps, request.body.ein, request.body, { actor: request.operator.actor, name: 'An operator of the platform' })),
    );
    app.post(
      '/payee_accounts/:id/approve',
      {
        schema: {
          tags,
          summary: 'Approve bank details another operator typed (PAYMENTS_TWO_OPERATORS): they replace the organisation’s others; ACH still waits out the cooling-off',
          params: IdParams,
          body: EmptyObject,
        },
      },
      async (request) => approvePayeeAccount(deps, request.params.id, request.operator.actor),
    );
  };
}
