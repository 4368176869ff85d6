// The operator API under /admin/v1: thin adapters over the same services the
// CLI uses. Authenticated by an operator token (`Authorization: Bearer alm_admin_...`).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../shared/errors.ts';
import { parseDollars } from '../../shared/money.ts';
import { PageQuery, StringEnum, Id, IdParams, Decimal8 } from '../../http/schemas.ts';
import { pageRequest } from '../../shared/page.ts';
import { adminTokens, auditLog, requireOperator, revokeAdminTokenAudited, type Operator } from './admin.service.ts';
import { createUserAudited, listUsers, setUserStatus, statement, fundOfUser } from '../users/index.ts';
import { BOOKS, type Book } from '../../shared/book.ts';
import { advanceContribution, correctReceipt, declarationsAwaitingMoney, receiveDeclared, recordContribution, CONTRIBUTION_TYPES, FREQUENCIES } from '../contributions/index.ts';
import { applyDonationEvent, applyDonationEventToMany, donationIdsInStatus, DONATION_STATUSES, type DonationEvent } from '../donations/index.ts';
import { movePortfolio } from '../portfolio/index.ts';
import { formatCheck, runCheck } from '../check/index.ts';
import { exportUser, forgetUser } from '../privacy/index.ts';
import { listAllApps, setAppEnabled } from '../apps/index.ts';

declare module 'fastify' {
  interface FastifyRequest {
    operator: Operator;
  }
}

const EVENTS = ['approve', 'reject', 'pay', 'mail_check', 'cash_check', 'void_check'] as const;
const BATCH_MAX = 1000;

/** A JSON number or string as exact decimal text (numbers print their shortest exact form). */
function decimalText(value: string | number): string {
  const text = typeof value === 'number' ? String(value) : value;
  if (!/^[0-9]{1,12}(\.[0-9]{1,8})?$/.test(text)) {
    throw new AppError('unprocessable', 'validation_failed', `${text} is not a decimal with at most 8 places`, {
      errors: [{ field: 'units', code: 'validation_failed', message: 'must be a decimal with at most 8 places' }],
    });
  }
  return text;
}

/**
 * Operators act in the live book: a sandbox object is not found unless the
 * request asks for the sandbox with `?book=test` (rules §14).
 */
const BookQuery = Type.Object({ book: Type.Optional(StringEnum(BOOKS, { description: "live (default) or test: the sandbox twins' book" })) }, { additionalProperties: false });

function bookOf(request: { query: unknown }): Book {
  return (request.query as { book?: Book } | undefined)?.book ?? 'live';
}

export function adminRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['Operators'];
    app.addHook('onRequest', async (request) => {
      request.operator = await requireOperator(deps, request.headers.authorization);
    });

    app.get(
      '/users',
      {
        schema: {
          tags,
          summary: 'Users with their funds (live users; ?book=test for the sandbox twins)',
          querystring: Type.Composite([PageQuery, BookQuery], { additionalProperties: false }),
        },
      },
      async (request) => {
        const page = pageRequest(request.query);
        const { items, count } = await listUsers(deps, bookOf(request), page);
        return { items, meta: { count, page: page.page, last: Math.max(1, Math.ceil(count / page.per_page)) } };
      },
    );

    app.post(
      '/users',
      {
        schema: {
          tags,
          summary: 'Create a user with a fund',
          body: Type.Object(
            {
              name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
              slug: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9-]{1,60}$' })),
              city: Type.Optional(Type.String({ maxLength: 200 })),
              visible: Type.Optional(Type.Boolean()),
            },
            { additionalProperties: false },
          ),
        },
      },
      async (request, reply) => reply.code(201).send(await createUserAudited(deps, request.body, request.operator.actor)),
    );

    for (const [path, status] of [
      ['suspend', 'suspended'],
      ['reactivate', 'active'],
    ] as const) {
      app.post(`/users/:id/${path}`, { schema: { tags, summary: `${path} a user`, params: Type.Object({ id: Id }) } }, async (request) => {
        await setUserStatus(deps, request.params.id, status, request.operator.actor);
        return {};
      });
    }

    // Login with Almoner's apps (ADR 16): every app with its owner and connected donors; disable one at once.
    app.get(
      '/apps',
      {
        schema: {
          tags,
          summary: 'Apps registered for Login with Almoner, newest first',
          querystring: Type.Object({ before: Type.Optional(Id), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) }),
        },
      },
      async (request) => ({ data: await listAllApps(deps, request.query.limit ?? 50, request.query.before) }),
    );
    for (const path of ['disable', 'enable'] as const) {
      app.post(
        `/apps/:client_id/${path}`,
        {
          schema: {
            tags,
            summary: path === 'disable' ? 'Disable an app: its sign-ins, tokens and id tokens are refused at once' : 'Enable a disabled app again',
            params: Type.Object({ client_id: Type.String({ pattern: '^app_[0-9A-Za-z]{24}$' }) }),
            body: Type.Optional(Type.Object({ reason: Type.Optional(Type.String({ maxLength: 500 })) }, { additionalProperties: false })),
          },
        },
        async (request) => setAppEnabled(deps, request.params.client_id, path === 'enable', request.operator.actor, request.body?.reason),
      );
    }

    app.get(
      '/users/:id/statement',
      { schema: { tags, summary: "A user's balances and journal lines", params: Type.Object({ id: Id }), querystring: BookQuery } },
      async (request) => statement(deps, bookOf(request), request.params.id),
    );

    app.get(
      '/users/:id/export',
      { schema: { tags, summary: 'Everything stored about a live user and their sandbox twin (a person asking for their data)', params: Type.Object({ id: Id }) } },
      async (request) => exportUser(deps, request.params.id),
    );

    app.post(
      '/users/:id/forget',
      {
        schema: {
          tags,
          summary: "Forget a live user: their personal data is pseudonymised, their keys and sign-in end; the ledger's amounts stay (audited)",
          params: Type.Object({ id: Id }),
        },
      },
      async (request) => {
        await forgetUser(deps, request.params.id, request.operator.actor);
        return {};
      },
    );

    app.post(
      '/contributions',
      {
        schema: {
          tags,
          summary: 'Record a contribution',
          querystring: BookQuery,
          body: Type.Object(
            {
              user_id: Id,
              type: StringEnum(CONTRIBUTION_TYPES),
              units: Decimal8,
              valuation: Decimal8,
              currency: Type.String({ pattern: '^[A-Z0-9.-]{1,16}$' }),
              frequency: Type.Optional(StringEnum(FREQUENCIES)),
              status: Type.Optional(StringEnum(['waiting_for_funds', 'pending', 'success'] as const)),
            },
            { additionalProperties: false },
          ),
        },
      },
      async (request, reply) => {
        const b = request.body;
        const id = await recordContribution(
          deps,
          {
            user_id: b.user_id,
            fund_id: (await fundOfUser(deps, bookOf(request), b.user_id)).id,
            type: b.type,
            units: decimalText(b.units),
            valuation: decimalText(b.valuation),
            currency: b.currency,
            frequency: b.frequency ?? 'OneTime',
            status: b.status ?? 'pending',
          },
          request.operator.actor,
        );
        return reply.code(201).send({ id });
      },
    );

    app.post(
      '/contributions/:id/advance',
      {
        schema: {
          tags,
          summary: 'Move a contribution along its state machine',
          params: Type.Object({ id: Id }),
          querystring: BookQuery,
          body: Type.Object({ status: StringEnum(['pending', 'success', 'failed'] as const) }, { additionalProperties: false }),
        },
      },
      async (request) => {
        await advanceContribution(deps, bookOf(request), request.params.id, request.body.status, request.operator.actor);
        return {};
      },
    );

    app.get(
      '/contributions/awaiting',
      {
        schema: {
          tags,
          summary: 'Declared contributions waiting for their money, oldest first; ?reference= finds one',
          querystring: Type.Composite([BookQuery, Type.Object({ reference: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9-]{1,20}$' })) })], { additionalProperties: false }),
        },
      },
      async (request) => ({ items: await declarationsAwaitingMoney(deps, bookOf(request), request.query.reference) }),
    );

    app.post(
      '/contributions/:id/receive',
      {
        schema: {
          tags,
          summary: 'Record what arrived for a declared contribution (units, valuation and its source); it becomes pending with that money',
          params: Type.Object({ id: Id }),
          querystring: BookQuery,
          body: Type.Object(
            {
              units: Type.String({ description: 'What arrived, up to 8 decimals (cash: the dollars)' }),
              valuation: Type.String({ description: 'Per unit in USD, up to 8 decimals (cash: 1)' }),
              valuation_source: Type.Optional(Type.String({ description: 'Where a non-cash valuation came from, e.g. "NYSE close 2026-11-20"' })),
            },
            { additionalProperties: false },
          ),
        },
      },
      async (request) => {
        await receiveDeclared(deps, bookOf(request), request.params.id, request.body, request.operator.actor);
        return {};
      },
    );

    app.post(
      '/contributions/:id/receipt/corrections',
      {
        schema: {
          tags,
          summary: "Correct a contribution's receipt: a new receipt from the contribution and donor as they are now, naming the one it replaces and why; both remain",
          params: Type.Object({ id: Id }),
          querystring: BookQuery,
          body: Type.Object({ reason: Type.String({ description: 'Why, as the new receipt states it (1 to 500 characters)' }) }, { additionalProperties: false }),
        },
      },
      async (request, reply) => reply.code(201).send({ receipt: await correctReceipt(deps, bookOf(request), request.params.id, request.body.reason, request.operator.actor) }),
    );

    for (const event of EVENTS) {
      app.post(
        `/donations/:id/${event}`,
        {
          schema: {
            tags,
            summary: `${event.replace('_', ' ')} a donation`,
            params: Type.Object({ id: Id }),
            querystring: BookQuery,
            ...(event === 'reject' ? { body: Type.Object({ reason: Type.String({ minLength: 1, maxLength: 1000 }) }, { additionalProperties: false }) } : {}),
          },
        },
        async (request) => {
          const reason = (request.body as { reason?: string } | undefined)?.reason;
          const status = await applyDonationEvent(deps, bookOf(request), request.params.id, event, { actor: request.operator.actor, ...(reason === undefined ? {} : { reason }) });
          return { id: request.params.id, status };
        },
      );
    }

    app.post(
      '/donations/batch',
      {
        schema: {
          tags,
          summary:
            'Apply one event to many donations, all or none: listed ids, or up to 1,000 donations in a status ("pay every approved donation"; `more` says whether some remain: call again); live donations unless ?book=test',
          querystring: BookQuery,
          body: Type.Object(
            {
              event: StringEnum(EVENTS),
              ids: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: BATCH_MAX })),
              status: Type.Optional(StringEnum(DONATION_STATUSES)),
              reason: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
            },
            { additionalProperties: false },
          ),
        },
      },
      async (request) => {
        const b = request.body;
        if ((b.ids === undefined) === (b.status === undefined)) {
          throw new AppError('unprocessable', 'validation_failed', 'give either ids or status', {
            errors: [{ field: 'ids', code: 'validation_failed', message: 'give either ids or status, not both' }],
          });
        }
        const status = b.status as (typeof DONATION_STATUSES)[number] | undefined;
        const ids = b.ids ?? (await donationIdsInStatus(deps, bookOf(request), status as (typeof DONATION_STATUSES)[number], BATCH_MAX));
        // One transaction: all of them or none. `more`: donations still in that status (call again).
        const result = await applyDonationEventToMany(deps, bookOf(request), ids, b.event as DonationEvent, {
          actor: request.operator.actor,
          ...(b.reason === undefined ? {} : { reason: b.reason }),
        });
        const more = status !== undefined && (await donationIdsInStatus(deps, bookOf(request), status, 1)).length > 0;
        return { ...result, more };
      },
    );

    app.post(
      '/users/:id/portfolio',
      {
        schema: {
          tags,
          summary: 'Move money between available and the portfolio',
          params: Type.Object({ id: Id }),
          querystring: BookQuery,
          body: Type.Object({ move: StringEnum(['invest', 'liquidate'] as const), amount: Type.Number() }, { additionalProperties: false }),
        },
      },
      async (request) => {
        const amount = parseDollars(request.body.amount);
        if (!amount.ok)
          throw new AppError('unprocessable', 'amount_invalid', `amount ${amount.reason}`, { errors: [{ field: 'amount', code: 'amount_invalid', message: amount.reason }] });
        await movePortfolio(deps, (await fundOfUser(deps, bookOf(request), request.params.id)).id, request.body.move, amount.cents, request.operator.actor);
        return {};
      },
    );

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
