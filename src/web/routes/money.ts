// Adding money in the web app: declare, read the instructions, cancel, the
// receipt and its PDF, tax statements and CSV downloads. The same use cases
// as /v1/contributions, for the signed-in donor's live fund.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { callerOf } from '../../modules/accounts/index.ts';
import { getBalance } from '../../modules/users/index.ts';
import {
  cancelContribution,
  CONTRIBUTION_CSV_HEADER,
  CONTRIBUTION_STATUSES,
  declareContribution,
  declaredForm,
  exportContributions,
  listContributions,
  RAILS,
  UNIT_TYPES,
  receiptOf,
  receiptDownload,
  statementDownload,
  statementPeriod,
  taxStatement,
  type Declaration,
} from '../../modules/contributions/index.ts';
import { DONATION_CSV_HEADER, DONATION_STATUSES, exportDonations } from '../../modules/donations/index.ts';
import { exportFilters, sendCsv } from '../../http/csv.ts';
import { sendPdf } from '../../http/pdf.ts';
import { AppError } from '../../shared/errors.ts';
import { STATUS_OF_KIND } from '../../http/errors.ts';
import { centsToDollars } from '../../shared/money.ts';
import { attempt, FormReader, pageParam, stateOf } from '../forms.ts';
import type { FormState } from '../layout.ts';
import { contributionPage, moneyPage, TYPE_LABELS, type MoneyData } from '../pages/money.ts';
import { requireSession, sendPage, sessionOf, type WebContext } from '../context.ts';

const PER_PAGE = 20;

function idParam(request: FastifyRequest): number {
  const raw = (request.params as { id: string }).id;
  if (!/^[1-9]\d{0,14}$/.test(raw)) throw new AppError('not_found', 'contribution_not_found', `no contribution ${raw}`);
  return Number(raw);
}

/** The declaration a form describes: the type, then an amount or units and a symbol as typed (the service judges them). */
function readDeclaration(form: FormReader): Declaration {
  const type = form.oneOf(
    'type',
    TYPE_LABELS.map(([t]) => t),
    'wire_payment',
  );
  const units = form.text('units', { max: 30 });
  const symbol = form.text('symbol', { max: 30 }).toUpperCase();
  form.values.symbol = symbol;
  const declaration: Declaration = { type };
  const cents = form.dollars('amount', { required: RAILS[type as keyof typeof RAILS]?.asset === 'cash', minCents: 1 });
  if (cents !== null) declaration.amount = centsToDollars(cents);
  if (units !== '') declaration.units = units;
  if (symbol !== '') declaration.symbol = symbol;
  return declaration;
}

export function moneyRoutes({ deps }: WebContext) {
  return async (web: FastifyInstance) => {
    web.addHook('preHandler', requireSession);
    const caller = (request: FastifyRequest) => callerOf(sessionOf(request));

    async function load(request: FastifyRequest, page: number): Promise<MoneyData> {
      const who = caller(request);
      const [balance, contributions] = await Promise.all([getBalance(deps, who), listContributions(deps, who, { page, per_page: PER_PAGE })]);
      const year = deps.clock.now().getUTCFullYear();
      return { balance, contributions, years: [year, year - 1, year - 2], unitTypes: UNIT_TYPES };
    }
    const show = async (request: FastifyRequest, reply: FastifyReply, state: FormState | undefined, status: number) =>
      sendPage(reply, moneyPage(request.visitor, await load(request, 1), state), status);

    web.get('/money', async (request, reply) => {
      const query = request.query as { page?: string; done?: string };
      return sendPage(reply, moneyPage(request.visitor, await load(request, pageParam(query.page)), undefined, query.done));
    });

    web.post('/money', async (request, reply) => {
      const form = new FormReader(request.body as URLSearchParams);
      const declaration = readDeclaration(form);
      if (!form.ok) return show(request, reply, form.state(), 422);
      const result = await attempt(() => declareContribution(deps, caller(request), declaration));
      if (!result.ok) return show(request, reply, stateOf(result.error, form.values), STATUS_OF_KIND[result.error.kind]);
      return reply.code(303).header('location', `/money/${result.value.id}?done=contribution_declared`).send();
    });

    // Downloads first: their paths are more specific than /money/:id.
    web.get('/money/contributions.csv', async (request, reply) => {
      const filters = exportFilters(request.query as Record<string, unknown>, CONTRIBUTION_STATUSES);
      return sendCsv(reply, 'contributions.csv', CONTRIBUTION_CSV_HEADER, exportContributions(deps, caller(request), filters));
    });
    web.get('/dashboard/donations.csv', async (request, reply) => {
      const filters = exportFilters(request.query as Record<string, unknown>, DONATION_STATUSES);
      return sendCsv(reply, 'donations.csv', DONATION_CSV_HEADER, exportDonations(deps, caller(request), filters));
    });

    const sendStatement = async (request: FastifyRequest, reply: FastifyReply, period: { from: string; to: string }) => {
      const who = caller(request);
      return sendPdf(reply, await statementDownload(deps, who, await taxStatement(deps, who, period)));
    };
    web.get('/money/statements/:year', async (request, reply) => {
      const raw = /^(\d{4})\.pdf$/.exec((request.params as { year: string }).year)?.[1];
      if (raw === undefined) throw new AppError('not_found', 'not_found', 'no such statement: ask for a year, like /money/statements/2026.pdf');
      return sendStatement(request, reply, statementPeriod(Number(raw), undefined, undefined));
    });
    web.get('/money/statement.pdf', async (request, reply) => {
      const query = request.query as { from?: string; to?: string };
      return sendStatement(request, reply, statementPeriod(undefined, query.from ?? '', query.to ?? ''));
    });

    web.get('/money/:id', async (request, reply) => {
      const who = caller(request);
      const id = idParam(request);
      const contribution = await declaredForm(deps, who, id);
      // One that succeeded before receipts began has none: its page shows without.
      const receipt =
        contribution.status === 'success'
          ? await receiptOf(deps, who, id).catch((error: unknown) => (error instanceof AppError && error.code === 'receipt_not_found' ? undefined : Promise.reject(error)))
          : undefined;
      return sendPage(reply, contributionPage(request.visitor, contribution, receipt, (request.query as { done?: string }).done));
    });

    web.get('/money/:id/receipt.pdf', async (request, reply) => {
      return sendPdf(reply, await receiptDownload(await receiptOf(deps, caller(request), idParam(request))));
    });

    web.post('/money/:id/cancel', async (request, reply) => {
      await cancelContribution(deps, caller(request), idParam(request));
      return reply.code(303).header('location', '/money?done=contribution_cancelled').send();
    });
  };
}
