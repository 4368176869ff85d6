// The web app: server-rendered pages over the same service functions as the
// API. Its own Fastify context: form bodies (and only they) are parsed here,
// every POST must carry the visitor's CSRF token, every page is sent with a
// content security policy that allows only this site's own script and styles.
import { readFileSync } from 'node:fs';
import type { FastifyError, FastifyInstance } from 'fastify';
import { CONTENT_SECURITY_POLICY, sendPage, type WebContext } from './context.ts';
import { AppError } from '../shared/errors.ts';
import { noteProblem, STATUS_OF_KIND, toAppError } from '../http/errors.ts';
import { errorPage } from './pages/public.ts';
import { formIsGenuine, readVisitor } from './visitor.ts';
import { accountRoutes } from './routes/account.ts';
import { dashboardRoutes } from './routes/dashboard.ts';
import { moneyRoutes } from './routes/money.ts';
import { webhookSettingsRoutes } from './routes/webhooks.ts';
import { settingsRoutes } from './routes/settings.ts';
import { publicRoutes } from './routes/public.ts';
import { donateRoutes } from './routes/donate.ts';
import { appSettingsRoutes, interactionRoutes } from './routes/apps.ts';
import { charityRoutes } from './routes/charities.ts';
import { investRoutes } from './routes/invest.ts';
import { fundraiserFormRoutes } from './routes/fundraisers.ts';
import { fundRoutes } from './routes/fund.ts';

const ASSETS = new Map<string, { type: string; body: string }>([
  ['app.css', { type: 'text/css; charset=utf-8', body: readFileSync(new URL('./assets/app.css', import.meta.url), 'utf8') }],
  ['favicon.svg', { type: 'image/svg+xml', body: readFileSync(new URL('./assets/favicon.svg', import.meta.url), 'utf8') }],
  ['app.js', { type: 'text/javascript; charset=utf-8', body: readFileSync(new URL('./assets/app.js', import.meta.url), 'utf8') }],
  // For other sites' pages: the donate button (docs/api.md, "Donate links").
  ['donate-button.js', { type: 'text/javascript; charset=utf-8', body: readFileSync(new URL('./assets/donate-button.js', import.meta.url), 'utf8') }],
]);

/** The pages' routes, in order: publicRoutes last (its /<slug> profiles come after every fixed path). */
const PAGES = [
  accountRoutes,
  dashboardRoutes,
  moneyRoutes,
  settingsRoutes,
  webhookSettingsRoutes,
  appSettingsRoutes,
  interactionRoutes,
  charityRoutes,
  investRoutes,
  fundRoutes,
  donateRoutes,
  fundraiserFormRoutes,
  publicRoutes,
];

export function webApp(ctx: WebContext) {
  const { deps } = ctx;
  return async (web: FastifyInstance) => {
    web.removeAllContentTypeParsers();
    web.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
      done(null, new URLSearchParams(body as string));
    });
    web.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true };
    });
    // A page reads each query parameter as one text: a repeated one (?query=a&query=b) counts once, as its first value.
    web.addHook('preValidation', async (request) => {
      const query = request.query as Record<string, unknown> | undefined;
      if (query === undefined || query === null) return;
      for (const [name, value] of Object.entries(query)) if (Array.isArray(value)) query[name] = value[0];
    });
    web.addHook('onRequest', async (request, reply) => {
      reply
        .header('content-security-policy', CONTENT_SECURITY_POLICY)
        .header('x-content-type-options', 'nosniff')
        .header('x-frame-options', 'DENY')
        .header('referrer-policy', 'same-origin')
        .header('cache-control', 'no-store');
      if (request.url.startsWith('/static/')) return;
      request.visitor = await readVisitor(deps, request, reply);
    });
    web.addHook('preHandler', async (request, reply) => {
      if (request.method !== 'POST') return;
      const form = request.body instanceof URLSearchParams ? request.body : undefined;
      if (!formIsGenuine(deps, request, request.visitor, form?.get('_csrf') ?? null)) {
        request.log.warn({ url: request.url }, 'form refused: missing or wrong CSRF token, or another origin');
        return sendPage(
          reply,
          errorPage(request.visitor, 403, 'This form has expired', 'The form was sent without its security token, or from another site. Go back, reload the page and try again.'),
          403,
        );
      }
    });
    web.setErrorHandler((error: FastifyError, request, reply) => {
      const problem = toAppError(error, request);
      noteProblem(request, problem.code);
      const status = STATUS_OF_KIND[problem.kind];
      for (const [name, value] of Object.entries(problem.headers ?? {})) reply.header(name, value);
      const visitor = request.visitor ?? { session: undefined, token: undefined, csrf: '' };
      const title = status === 404 ? 'Not found' : status >= 500 ? 'Something went wrong' : 'That did not work';
      const detail =
        status >= 500 && problem.kind === 'internal'
          ? `Please try again. If it keeps happening, quote ${request.id} when you report it.`
          : `${problem.message.charAt(0).toUpperCase()}${problem.message.slice(1)}.`;
      return sendPage(reply, errorPage(visitor, status, title, detail, status >= 500 ? undefined : problem.code), status);
    });
    // Browsers ask for /favicon.ico whatever the page says: the same icon (an SVG; every current browser takes it).
    web.get('/favicon.ico', async (_request, reply) => reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(ASSETS.get('favicon.svg')?.body));
    web.get('/static/:asset', async (request, reply) => {
      const asset = ASSETS.get((request.params as { asset: string }).asset);
      if (asset === undefined) throw new AppError('not_found', 'not_found', 'no such file');
      return reply.type(asset.type).header('cache-control', 'public, max-age=3600').send(asset.body);
    });
    for (const routes of PAGES) await web.register(routes(ctx));
  };
}
