// buildApp(deps): the whole HTTP application as a Fastify instance. It never
// listens; src/main.ts does, and tests use inject() or listen on port 0.
import Fastify, { type FastifyBaseLogger, type FastifyServerOptions, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import FindMyWay from 'find-my-way';
import type { Deps } from './deps.ts';
import { ping } from './db/database.ts';
import { AppError } from './shared/errors.ts';
import { ulid } from './shared/ulid.ts';
import { authenticate } from './http/auth.ts';
import { clientErrorHandler, frameworkErrors, registerErrorHandling, sendProblem } from './http/errors.ts';
import { claimIdempotencyKey, settleIdempotencyKey, type Replayers } from './http/idempotency.ts';
import { parseStrictJson } from './http/json.ts';
import { registerMetrics } from './http/metrics.ts';
import { InProcessCounter, RateLimiter, RedisCounter } from './http/rate-limit.ts';
import { Problem, withProblemCodes } from './http/schemas.ts';
import { buildSerializer } from './http/serializers.ts';
import { validatorCompiler } from './http/validation.ts';
import { CAUSES, causeLogoSvg, DirectorySearch } from './modules/nonprofits/index.ts';
import { Cause, DonationNonProfit, NonProfit } from './modules/nonprofits/nonprofits.schema.ts';
import { nonProfitRoutes } from './modules/nonprofits/nonprofits.routes.ts';
import { portfolioRoutes } from './modules/portfolio/portfolio.routes.ts';
import { OwnDonation, UserDonation } from './modules/donations/donations.schema.ts';
import { donationReplayers, donationRoutes } from './modules/donations/donations.routes.ts';
import { giftReplayers, giftRoutes } from './modules/gifts/gifts.routes.ts';
import { Gift } from './modules/gifts/gifts.schema.ts';
import { userRoutes } from './modules/users/users.routes.ts';
import { Balance, Profile } from './modules/users/users.schema.ts';
import { contributionReplayers, contributionRoutes } from './modules/contributions/contributions.routes.ts';
import { Contribution } from './modules/contributions/contributions.schema.ts';
import { keyRoutes } from './modules/keys/keys.routes.ts';
import { ApiKey } from './modules/keys/keys.schema.ts';
import { Allocation, Portfolio } from './modules/portfolio/portfolio.schema.ts';
import { adminRoutes } from './modules/admin/admin.routes.ts';
import { userOperatorRoutes } from './modules/users/users.admin.routes.ts';
import { appOperatorRoutes } from './modules/apps/apps.admin.routes.ts';
import { contributionOperatorRoutes } from './modules/contributions/contributions.admin.routes.ts';
import { donationOperatorRoutes } from './modules/donations/donations.admin.routes.ts';
import { portfolioOperatorRoutes } from './modules/portfolio/portfolio.admin.routes.ts';
import { diligenceOperatorRoutes } from './modules/diligence/diligence.admin.routes.ts';
import { paymentOperatorRoutes } from './modules/payments/payments.admin.routes.ts';
import { charityOperatorRoutes } from './modules/charities/charities.admin.routes.ts';
import { memberRoutes } from './modules/members/api.ts';
import { deathOperatorRoutes, successionRoutes } from './modules/succession/index.ts';
import { requireOperator } from './modules/admin/index.ts';
import { eventRoutes } from './modules/events/events.routes.ts';
import { notifyRoutes } from './modules/notify/index.ts';
import { webhookRoutes } from './modules/webhooks/webhooks.routes.ts';
import { scheduledReplayers, scheduledRoutes } from './modules/scheduled/scheduled.routes.ts';
import { sandboxRoutes } from './modules/sandbox/sandbox.routes.ts';
import { Fundraiser, fundraiserRoutes, Match } from './modules/fundraisers/index.ts';
import { CheckoutDonor, dafpayReplayers, dafpayRoutes, Grant, GrantableFund } from './modules/dafpay/index.ts';
import { LedgerCheckpoint, ledgerRoutes } from './modules/ledger/index.ts';
import { webApp } from './web/web.ts';
import { errorPage } from './web/pages/public.ts';
import { parseCookies, SESSION_COOKIE } from './web/visitor.ts';
import { sessionFor } from './modules/accounts/index.ts';
import { buildProvider, DISCOVERY_PATH, type OidcProvider } from './modules/apps/index.ts';
import { refusalOf, routeAction } from './shared/policy.ts';
import type { OpenApi } from './web/pages/reference.ts';

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export interface AppOptions {
  /** True once the process is shutting down: /readyz then answers 503 so load balancers drain it. */
  draining?: () => boolean;
  /**
   * Which parts this listener serves: the public one (the API, the web app, /docs), the operator
   * one (/admin/v1, /metrics), or both (the default, one listener). Health checks are on each.
   */
  serves?: { public: boolean; operator: boolean };
}

/**
 * Every answer of the JSON APIs (/v1, /admin/v1): never sniffed as another type, never kept by a
 * cache (they are one caller's money), unless a route chose its own caching.
 */
async function apiHeaders(_request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  reply.header('x-content-type-options', 'nosniff');
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  return payload;
}

/** TRUST_PROXY as a hop count: the `hops` nearest addresses of X-Forwarded-For are proxies; the next is the client. */
function trustHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}

/** The /v1 routes of a caller's own things, registered in this order under the API's hooks. */
const CALLER_ROUTES = [
  donationRoutes,
  giftRoutes,
  userRoutes,
  contributionRoutes,
  keyRoutes,
  eventRoutes,
  notifyRoutes,
  webhookRoutes,
  scheduledRoutes,
  memberRoutes,
  successionRoutes,
  fundraiserRoutes,
  dafpayRoutes,
  ledgerRoutes,
];

/** The schemas routes refer to by $id (Type.Ref), added once at the root. */
const SHARED_SCHEMAS = [
  Problem,
  Cause,
  NonProfit,
  DonationNonProfit,
  OwnDonation,
  UserDonation,
  Gift,
  Profile,
  Balance,
  Contribution,
  ApiKey,
  Portfolio,
  Allocation,
  Fundraiser,
  Match,
  CheckoutDonor,
  GrantableFund,
  Grant,
  LedgerCheckpoint,
];

/** Fastify's options: ids, limits, the second prefix, proxies, and the shared schema compilers. */
function serverOptions(deps: Deps) {
  return {
    loggerInstance: deps.log as FastifyBaseLogger,
    bodyLimit: deps.config.bodyLimitBytes,
    requestIdHeader: false,
    genReqId: (req) => {
      const sent = req.headers['x-request-id'];
      return typeof sent === 'string' && SANE_REQUEST_ID.test(sent) ? sent : ulid();
    },
    requestTimeout: deps.config.requestTimeoutMs,
    // The API answers under /public/api/v1 as under /v1 (the hosted service's second prefix): one
    // set of routes, reached by rewriting the path, not a second registration of every route and
    // schema. Links and messages quote the path the client sent (request.originalUrl).
    rewriteUrl: (req) => (req.url?.startsWith('/public/api/v1/') === true ? req.url.slice('/public/api'.length) : (req.url ?? '/')),
    // Off unless TRUST_PROXY names the proxies in front: X-Forwarded-For is anyone's to forge.
    trustProxy: typeof deps.config.trustProxy === 'number' ? trustHops(deps.config.trustProxy) : deps.config.trustProxy,
    return503OnClosing: true,
    // Errors raised before a route runs answer problem+json too (http/errors.ts).
    frameworkErrors,
    clientErrorHandler,
    ajv: { customOptions: {} },
    // Compiled once per process, shared by every app built in it (http/serializers.ts).
    schemaController: { compilersFactory: { buildSerializer } },
  } satisfies FastifyServerOptions & { loggerInstance: FastifyBaseLogger };
}

export async function buildApp(deps: Deps, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify(serverOptions(deps)).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler());
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.trim() === '') {
      // Many clients send Content-Type on every request: an empty body is no body,
      // unless the route takes one.
      if (request.routeOptions.schema?.body === undefined) return done(null, undefined);
      return done(new AppError('bad_request', 'invalid_json', 'the body is empty; send a JSON object'), undefined);
    }
    try {
      done(null, parseStrictJson(text));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  registerErrorHandling(app);
  const serves = options.serves ?? { public: true, operator: true };
  // Beside the public, /metrics needs an operator token; on the operator's own listener it is open.
  // /metrics is the operator listener's (ADMIN_PORT); on a listener that also serves the public only
  // when asked for (METRICS_ON_PUBLIC_PORT), and then behind an operator token.
  const metricsRoute = serves.operator && deps.config.metricsEnabled && (!serves.public || deps.config.metricsOnPublicPort);
  registerMetrics(app, deps.metrics, metricsRoute, serves.public ? (request) => requireOperator(deps, request.headers.authorization) : undefined);

  // Remember every route so a known path with the wrong method gets 405 + Allow, and so that the
  // authorization matrix can hold every route to a rule (app.routeTable).
  const known = FindMyWay({ ignoreTrailingSlash: false });
  const table: RouteEntry[] = [];
  app.decorate('routeTable', table);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) if (method !== 'HEAD') table.push({ method, url: route.url });
    // A profile page answers GET on every one-segment path; other methods there are still unknown paths.
    if (route.url === '/:slug') return;
    for (const method of methods) {
      if (method === 'HEAD' || !(METHODS as readonly string[]).includes(method)) continue;
      if (known.find(method as 'GET', route.url.replace(/:\w+/g, 'x')) === null) known.on(method as 'GET', route.url, () => {});
    }
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const asked = request.originalUrl.split('?')[0] ?? '/';
    const allowed = METHODS.filter((m) => known.find(m, path) !== null);
    if (allowed.length > 0) {
      return sendProblem(
        reply,
        new AppError('method_not_allowed', 'method_not_allowed', `${request.method} is not allowed here; use ${allowed.join(', ')}`, { headers: { allow: allowed.join(', ') } }),
      );
    }
    return sendProblem(reply, new AppError('not_found', 'not_found', `no route for ${request.method} ${asked}`));
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Almoner public API',
        version: '1.0.0',
        description: 'Donations, gifts, non-profits, profiles, contributions and balances. Every route also answers under /public/api/v1.',
      },
      servers: [{ url: deps.config.publicUrl }],
      components: { securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } } },
      security: [{ ApiKey: [] }],
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
    // Each operation names the problem codes it may answer with (each explained at /errors/<code>).
    transformObject: (document) => withProblemCodes('openapiObject' in document ? document.openapiObject : document.swaggerObject),
  });

  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
  // (Schemas are added here, at the root, only: a child context that adds its own
  // gets Fastify's default validator instead of the strict one set above.)

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    if (options.draining?.() === true) return sendProblem(reply, new AppError('unavailable', 'unavailable', 'this node is shutting down'));
    try {
      // The connections requests use: the pool, and on PostgreSQL the pipelined lookups too.
      await Promise.all(deps.lookups === deps.db ? [ping(deps.db)] : [ping(deps.db), ping(deps.lookups)]);
      return { status: 'ready' };
    } catch {
      return sendProblem(reply, new AppError('unavailable', 'unavailable', 'the database cannot be reached'));
    }
  });
  // Placeholders for profiles without their own pictures.
  const avatarSvg =
    '<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96" viewBox="0 0 96 96"><rect width="96" height="96" rx="48" fill="#D5DBDB"/><circle cx="48" cy="38" r="18" fill="#85929E"/><ellipse cx="48" cy="84" rx="30" ry="22" fill="#85929E"/></svg>';
  const coverSvg = '<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="300" viewBox="0 0 1200 300"><rect width="1200" height="300" fill="#EAF2F8"/></svg>';
  for (const [name, svg] of [
    ['avatar', avatarSvg],
    ['cover', coverSvg],
  ] as const) {
    app.get(`/static/${name}.svg`, { schema: { hide: true } }, async (_r, reply) => reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(svg));
  }
  for (const cause of CAUSES) {
    const svg = causeLogoSvg(cause);
    app.get(`/static/causes/${cause.slug}.svg`, { schema: { hide: true } }, async (_r, reply) =>
      reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(svg),
    );
  }

  if (serves.operator && deps.config.operatorApi) {
    await app.register(
      async (admin) => {
        admin.addHook('onSend', apiHeaders);
        await admin.register(
          adminRoutes(deps, [
            userOperatorRoutes,
            appOperatorRoutes,
            contributionOperatorRoutes,
            donationOperatorRoutes,
            portfolioOperatorRoutes,
            diligenceOperatorRoutes,
            paymentOperatorRoutes,
            charityOperatorRoutes,
            deathOperatorRoutes,
          ]),
        );
      },
      { prefix: '/admin/v1' },
    );
  }
  if (serves.public) {
    const sharing = {
      sharing(shared: boolean, reason?: string) {
        deps.metrics.rateLimitShared(shared);
        if (shared) deps.log.info('Redis is reachable again: rate limits are shared by all nodes');
        else deps.log.warn({ reason }, `Redis is unreachable: this node counts rate limits alone, and tries Redis again every ${deps.config.redisRetryMs / 1000} s`);
      },
      countedAlone: () => deps.metrics.rateLimitCountedAlone(),
    };
    const counter =
      deps.config.redisUrl === undefined
        ? new InProcessCounter()
        : new RedisCounter(deps.config.redisUrl, { prefix: deps.config.redisPrefix, retryMs: deps.config.redisRetryMs, timeoutMs: deps.config.redisTimeoutMs, events: sharing });
    deps.metrics.rateLimitShared(deps.config.redisUrl !== undefined);
    const limiter = new RateLimiter(counter, () => deps.clock.now().getTime());
    app.addHook('onClose', async () => limiter.close());
    const oidc = await loginWithAlmoner(app, deps);
    const directory = new DirectorySearch(deps);
    const v1 = async (api: FastifyInstance) => {
      api.addHook('onSend', apiHeaders);
      api.addHook('onRequest', async (request, reply) => {
        try {
          request.caller = await authenticate(deps, request, oidc);
        } catch (error) {
          // Requests without a valid key are limited per address, so guessing keys is slow.
          // (A key that could not be checked, the database being unreachable, is no guess.)
          if (error instanceof AppError && error.kind === 'unauthenticated') {
            await limiter.hit(`ip:${request.ip}`, deps.config.rateLimitAnonymousPerMinute, reply);
          }
          throw error;
        }
        const access = request.caller.app;
        await limiter.hit(access === undefined ? `key:${request.caller.key_id}` : `app:${access.connection_id}`, deps.config.rateLimitPerMinute, reply);
        checkAction(request);
      });
      // Idempotency keys apply to POSTs only: the hooks are attached to those routes alone.
      const replayers: Replayers = { ...donationReplayers, ...giftReplayers, ...scheduledReplayers, ...contributionReplayers, ...dafpayReplayers };
      const claim = async (request: FastifyRequest, reply: FastifyReply) => {
        if (await claimIdempotencyKey(deps, request, reply, replayers)) return reply;
      };
      const settle = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
        await settleIdempotencyKey(deps, request, reply, payload);
        return payload;
      };
      api.addHook('onRoute', (route) => {
        if (route.method !== 'POST') return;
        route.preHandler = [claim];
        route.onSend = [settle];
      });
      await api.register(nonProfitRoutes(deps, directory));
      await api.register(portfolioRoutes(deps));
      const sandbox = deps.config.sandbox ? [sandboxRoutes] : [];
      for (const routes of [...CALLER_ROUTES, ...sandbox]) {
        await api.register(routes(deps));
      }
    };
    await app.register(v1, { prefix: '/v1' });
    await app.register(webApp({ deps, directory, limiter, oidc, openapi: () => app.swagger() as unknown as OpenApi }));
  }
  return app;
}

/** A route as the router has it: its method and pattern (`/v1/donations/:donation_id`). */
export interface RouteEntry {
  method: string;
  url: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered, in order (HEAD left out: it is its GET's). */
    routeTable: readonly RouteEntry[];
  }
}

/**
 * The door's early refusal (ADR 23): the route's action asked of the one policy before any work,
 * as the use case will ask it again. A route the table does not name is for an organizer's key.
 */
function checkAction(request: FastifyRequest): void {
  const path = (request.routeOptions.url ?? '').replace(/^\/(public\/api\/)?v1/, '');
  const refusal = refusalOf(request.caller, routeAction(request.method, path) ?? 'members');
  if (refusal !== undefined) throw refusal;
}

/**
 * The OpenID Connect provider (ADR 16) under /oidc/ and its discovery document. Its requests go to
 * it untouched: Fastify neither parses their bodies nor answers them.
 */
async function loginWithAlmoner(app: FastifyInstance, deps: Deps): Promise<OidcProvider> {
  const anonymous = { session: undefined, token: undefined, csrf: '' };
  const oidc = buildProvider(deps, {
    signedInUser: async (req) => {
      const token = parseCookies(req.headers.cookie).get(SESSION_COOKIE);
      if (token === undefined || !/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
      return (await sessionFor(deps, token))?.user_id;
    },
    errorPage: (status, title, detail) => errorPage(anonymous, status, title, detail).text,
  });
  await app.register(async (provider) => {
    provider.removeAllContentTypeParsers();
    provider.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    const forward = async (request: FastifyRequest, reply: FastifyReply) => {
      reply.hijack();
      oidc.handle(request.raw, reply.raw);
    };
    provider.route({ method: ['GET', 'POST', 'OPTIONS'], url: '/oidc/*', handler: forward, schema: { hide: true } });
    provider.route({ method: ['GET', 'OPTIONS'], url: DISCOVERY_PATH, handler: forward, schema: { hide: true } });
  });
  return oidc;
}
