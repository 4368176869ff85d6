// Pages anyone may open: home, the directory and its suggestions, a
// non-profit's page, a profile, and a gift with the recipient's actions.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { callerOf } from '../../modules/accounts/index.ts';
import { acceptGift, claimGift, denyGift, openGiftPage } from '../../modules/gifts/index.ts';
import { listsInForce } from '../../modules/diligence/index.ts';
import { charityByEin, normalizeEin, causeById, CAUSES, zipCentre, directorySize } from '../../modules/nonprofits/index.ts';
import { avatarUrl, profileBySlug } from '../../modules/users/index.ts';
import { listPublicDonations } from '../../modules/donations/index.ts';
import { AppError } from '../../shared/errors.ts';
import { attempt, whichCharity } from '../forms.ts';
import { charityPage, charitySearchPage, giftPage, homePage, profilePage } from '../pages/public.ts';
import { requireSession, sendPage, sessionOf, type WebContext } from '../context.ts';
import type { CharityChoice } from '../layout.ts';
import { DONOR_REFERENCE, OPERATOR_REFERENCE, referencePage } from '../pages/reference.ts';
import { errorPage, errorsPage, eventsPage } from '../pages/errors.ts';
import { isProblemCode } from '../../shared/problem-codes.ts';
import type { Deps } from '../../deps.ts';
import type { Html } from '../html.ts';
import type { Visitor } from '../visitor.ts';
import type { DashboardForms } from '../pages/dashboard.ts';
import { claimsOfUser } from '../../modules/charities/index.ts';
import { fundraiserForViewer } from '../../modules/fundraisers/index.ts';
import { fundraiserPage } from '../pages/fundraiser.ts';

const QUERY_MAX = 200;
const SUGGESTIONS = 8;
/** How far "near me" by ZIP code reaches. */
const NEAR_KM = 25;

function pageParam(raw: unknown): number {
  return typeof raw === 'string' && /^\d{1,4}$/.test(raw) && Number(raw) >= 1 ? Number(raw) : 1;
}

/**
 * A charity's page (`found` as charityByEin gives it), with its donation form's state after a
 * refused donation: the form stays where the donor was, with what they typed.
 */
export async function charityPageOf(deps: Deps, visitor: Visitor, found: Awaited<ReturnType<typeof charityByEin>>, state?: DashboardForms['donation']): Promise<Html> {
  const checks = { lists: await listsInForce(deps), ...found.diligence };
  const session = visitor.session;
  const acting = session !== undefined && (await claimsOfUser(deps, session.user_id)).some((c) => c.status === 'approved' && c.ein === found.view.ein);
  return charityPage(visitor, { view: found.view, receives: found.receives, checks, acting, ...(await found.about()) }, state);
}

export function publicRoutes({ deps, directory, openapi }: WebContext) {
  return async (web: FastifyInstance) => {
    web.get('/', async (request, reply) => sendPage(reply, homePage(request.visitor)));

    // The API reference, from the routes' own OpenAPI document: the donor API, and the operators' apart.
    for (const [path, book] of !deps.config.apiDocs
      ? []
      : ([
          ['/docs', DONOR_REFERENCE],
          ['/docs/', DONOR_REFERENCE],
          ['/docs/operators', OPERATOR_REFERENCE],
        ] as const)) {
      web.get(path, async (request, reply) => sendPage(reply, referencePage(request.visitor, openapi(), book)));
    }

    // What each problem code means (every problem's `type` is its page) and the event catalogue.
    web.get('/errors', async (request, reply) => sendPage(reply, errorsPage(request.visitor)));
    web.get('/errors/:code', async (request, reply) => {
      const code = (request.params as { code: string }).code;
      if (!isProblemCode(code)) throw new AppError('not_found', 'not_found', `no problem code ${code}: the list is at /errors`);
      const operations = Object.entries(openapi().paths).flatMap(([path, ops]) =>
        Object.entries(ops)
          .filter(([, op]) => (op['x-problem-codes'] ?? []).includes(code) && !path.startsWith('/public/api/'))
          .map(([method]) => `${method.toUpperCase()} ${path}`),
      );
      return sendPage(reply, errorPage(request.visitor, code, operations));
    });
    web.get('/docs/events', async (request, reply) => sendPage(reply, eventsPage(request.visitor)));

    // Words, a cause and a state, each optional: with none, the causes to browse; with a cause or a state alone, its largest organisations.
    web.get('/charities', async (request, reply) => {
      const query = request.query as { query?: string; page?: string; cause?: string; state?: string; zip?: string };
      const text = (query.query ?? '').trim().slice(0, QUERY_MAX);
      const causeText = (query.cause ?? '').trim();
      const stateText = (query.state ?? '').trim().toUpperCase();
      const cause = causeText === '' ? undefined : /^\d{1,3}$/.test(causeText) ? causeById(Number(causeText)) : undefined;
      if (causeText !== '' && cause === undefined) throw new AppError('bad_request', 'invalid_parameter', `there is no cause ${causeText}: pick one of the list`);
      if (stateText !== '' && !/^[A-Z]{2}$/.test(stateText)) throw new AppError('bad_request', 'invalid_parameter', 'a state is its two-letter code, like VT');
      const state = stateText === '' ? undefined : stateText;
      // Near me: the largest organisations within NEAR_KM of a ZIP code's centre (a state does not narrow it further).
      const zipText = (query.zip ?? '').trim();
      const zip = zipText === '' ? undefined : zipText;
      const near = zip === undefined ? undefined : { ...(await zipCentre(deps, zip)), radius_km: NEAR_KM };
      const results =
        text === '' && cause === undefined && state === undefined && near === undefined
          ? undefined
          : await directory.search(
              {
                ...(text === '' ? {} : { query: text }),
                ...(cause === undefined ? {} : { cause_id: cause.id }),
                ...(near === undefined ? (state === undefined ? {} : { state }) : { near }),
              },
              { page: pageParam(query.page), per_page: 20 },
            );
      const asked = { query: text, cause: cause === undefined ? undefined : { id: cause.id, name: cause.name }, state: near === undefined ? state : undefined, zip };
      // A search that finds nothing says how large the directory is, and how the national one is loaded.
      const size = results !== undefined && results.meta.count === 0 ? await directorySize(deps) : undefined;
      return sendPage(reply, charitySearchPage(request.visitor, asked, CAUSES, results, size));
    });

    // Search-as-you-type for the donation forms: a few matches as JSON.
    web.get('/charities/suggest', async (request, reply) => {
      const text = ((request.query as { q?: string }).q ?? '').trim().slice(0, QUERY_MAX);
      if (text === '') return reply.send([]);
      const found = await directory.search({ query: text }, { page: 1, per_page: SUGGESTIONS });
      return reply.header('cache-control', 'private, max-age=60').send(found.items.map((n) => ({ ein: n.ein, name: n.name, city: n.city, state: n.state })));
    });

    web.get('/charities/:path', async (request, reply) => {
      const path = (request.params as { path: string }).path;
      const ein = normalizeEin(path.slice(0, 9));
      if (ein === null) throw new AppError('not_found', 'non_profit_not_found', 'there is no non-profit at this address');
      const found = await charityByEin(deps, ein);
      if (found.view.public_path !== `/charities/${path}`) return reply.code(301).header('location', found.view.public_path).send();
      return sendPage(reply, await charityPageOf(deps, request.visitor, found));
    });

    const giftCode = (request: FastifyRequest) => {
      const code = (request.params as { code: string }).code;
      if (!/^[0-9a-fA-F-]{36}$/.test(code)) throw new AppError('not_found', 'gift_not_found', 'there is no gift at this address');
      return code;
    };
    const showGift = async (
      request: FastifyRequest,
      reply: FastifyReply,
      options: { done?: string; error?: string; claimEin?: string; claimChoices?: CharityChoice[] },
      status = 200,
    ) => {
      const code = giftCode(request);
      // The web is the live book's: a sandbox gift has no page (rules §14).
      const gift = await openGiftPage(deps, { user_id: request.visitor.session?.user_id ?? null, book: 'live' }, code);
      return sendPage(reply, giftPage(request.visitor, gift, { ...options, isGiver: gift.giver_id === request.visitor.session?.user_id }), status);
    };

    web.get('/gifts/:code', async (request, reply) =>
      showGift(request, reply, { ...((request.query as { done?: string }).done === undefined ? {} : { done: (request.query as { done: string }).done }) }),
    );

    const act = (name: 'accept' | 'claim' | 'deny', done: string) => {
      web.post(`/gifts/:code/${name}`, { preHandler: requireSession }, async (request, reply) => {
        const code = giftCode(request);
        const caller = callerOf(sessionOf(request));
        const ein = (request.body as URLSearchParams | undefined)?.get('ein')?.trim() ?? '';
        // A name typed without picking a suggestion: claim for the one match, or offer the best ones.
        let choices: CharityChoice[] = [];
        const result = await attempt(async () => {
          if (name === 'accept') return acceptGift(deps, caller, code);
          if (name === 'deny') return denyGift(deps, caller, code);
          const named = await whichCharity(directory, ein.slice(0, QUERY_MAX));
          if ('matches' in named && named.matches.length > 1) {
            choices = named.matches;
            return undefined;
          }
          const found = 'ein' in named ? named.ein : named.matches[0]?.ein;
          if (found === undefined) throw new AppError('unprocessable', 'non_profit_not_found', 'no non-profit matches that name or EIN');
          return claimGift(deps, caller, code, found);
        });
        if (result.ok && choices.length > 0) return showGift(request, reply, { error: 'Choose the non-profit you meant.', claimEin: ein, claimChoices: choices });
        if (!result.ok) {
          if (result.error.kind === 'not_found' && result.error.code === 'gift_not_found') throw result.error;
          return showGift(
            request,
            reply,
            { error: `${result.error.message.charAt(0).toUpperCase()}${result.error.message.slice(1)}.`, claimEin: ein },
            result.error.kind === 'conflict' ? 409 : result.error.kind === 'forbidden' ? 403 : 422,
          );
        }
        return reply.code(303).header('location', `/gifts/${code}?done=${done}`).send();
      });
    };
    act('accept', 'gift_accepted');
    act('claim', 'gift_claimed');
    act('deny', 'gift_denied');

    // A fundraiser's page (rules §22): anyone may look; the web is the live book's.
    web.get('/fundraisers/:id', async (request, reply) => {
      const raw = (request.params as { id: string }).id;
      if (!/^\d{1,15}$/.test(raw)) throw new AppError('not_found', 'fundraiser_not_found', `no fundraiser ${raw}`);
      const f = await fundraiserForViewer(deps, { user_id: request.visitor.session?.user_id ?? null, book: 'live' }, Number(raw));
      return sendPage(reply, fundraiserPage(request.visitor, f, { done: (request.query as { done?: string }).done }));
    });

    // Profiles at /<slug> (registered last; every fixed path above wins over it).
    web.get('/:slug', async (request, reply) => {
      const slug = (request.params as { slug: string }).slug.toLowerCase();
      // The web is the live book's (rules §14).
      const { user, own, fund_name, cause_ids } = await profileBySlug(deps, { user_id: request.visitor.session?.user_id ?? null, book: 'live' }, slug);
      const causes = cause_ids.flatMap((id) => causeById(id) ?? []);
      const donations = await listPublicDonations(deps, user.id, { page: pageParam((request.query as { page?: string }).page), per_page: 20 });
      return sendPage(
        reply,
        profilePage(
          request.visitor,
          {
            name: user.name,
            slug: user.slug,
            avatar: avatarUrl(deps, user),
            fund_name,
            causes,
            own,
            visible: user.visible,
          },
          donations,
        ),
      );
    });
  };
}
