// The dashboard and its forms: donate, cancel, gifts, recurring donations.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.ts';
import { callerOf, unconfirmedAddress } from '../../modules/accounts/index.ts';
import type { Caller } from '../../shared/caller.ts';
import { getBalance } from '../../modules/users/index.ts';
import { investmentTotals, valueHistory } from '../../modules/portfolio/index.ts';
import { cancelDonation, createDonation, givesByRequest, listOwnDonations, DONATION_MIN_CENTS } from '../../modules/donations/index.ts';
import { createGift, giftsWaitingFor, listGifts, GIFT_MIN_CENTS } from '../../modules/gifts/index.ts';
import { listContributions } from '../../modules/contributions/index.ts';
import { cancelSchedule, createSchedule, listSchedules, SCHEDULE_FREQUENCIES } from '../../modules/scheduled/index.ts';
import { AppError } from '../../shared/errors.ts';
import { STATUS_OF_KIND } from '../../http/errors.ts';
import { attempt, FormReader, pageParam, stateOf, whichCharity } from '../forms.ts';
import { dashboardPage, type DashboardData, type DashboardForms } from '../pages/dashboard.ts';
import { requireSession, sendPage, sessionOf, type WebContext } from '../context.ts';
import { charityPageOf } from './public.ts';
import { charityByEin } from '../../modules/nonprofits/index.ts';
import { fundraiserForViewer } from '../../modules/fundraisers/index.ts';
import { fundraiserPage } from '../pages/fundraiser.ts';
import { donateLinkPage } from '../pages/donate.ts';
import { errorPage } from '../pages/public.ts';
import { isLinkError, linkDonationFields, linkFormPolicy, linkProblem, readLink, successLocation, type DonateLink } from '../donate-link.ts';
import type { FormState } from '../layout.ts';
import { fundsOf } from '../../modules/members/api.ts';
import { claimsOfUser } from '../../modules/charities/index.ts';
import { isCalendarDay } from '../../shared/days.ts';

const PER_PAGE = 20;

async function loadDashboard(deps: Deps, caller: Caller, page: number): Promise<DashboardData> {
  const first = { page: 1, per_page: PER_PAGE };
  const [balance, donations, gifts, contributions, schedules, history, waiting, address, funds, claims] = await Promise.all([
    getBalance(deps, caller),
    listOwnDonations(deps, caller, { page, per_page: PER_PAGE }),
    listGifts(deps, caller, first),
    listContributions(deps, caller, first),
    listSchedules(deps, caller, first),
    valueHistory(deps, caller),
    giftsWaitingFor(deps, caller),
    unconfirmedAddress(deps, caller.actor_id),
    fundsOf(deps, caller),
    claimsOfUser(deps, caller.actor_id),
  ]);
  const current = funds.find((f) => f.id === caller.fund_id);
  const acting = { role: caller.role, fund_name: current?.name ?? 'Your fund', asks: givesByRequest(caller) };
  const year = `${deps.clock.now().toISOString().slice(0, 4)}-01-01T00:00:00.000Z`;
  const invested = await investmentTotals(deps, caller.fund_id, year, deps.clock.now().toISOString());
  const organisations = claims.map((c) => ({ ein: c.ein, name: c.name, status: c.status }));
  return { balance, acting, organisations, donations, gifts, contributions, schedules, history, invested, waiting, ...(address === undefined ? {} : { unconfirmed: address }) };
}

function idParam(request: FastifyRequest): number {
  const raw = (request.params as { id: string }).id;
  if (!/^\d{1,15}$/.test(raw)) throw new AppError('not_found', 'not_found', `no such item ${raw}`);
  return Number(raw);
}

export function dashboardRoutes({ deps, directory }: WebContext) {
  return async (web: FastifyInstance) => {
    web.addHook('preHandler', requireSession);
    const caller = (request: FastifyRequest) => callerOf(sessionOf(request));
    const rerender = async (request: FastifyRequest, reply: FastifyReply, forms: DashboardForms, status: number) =>
      sendPage(reply, dashboardPage(request.visitor, await loadDashboard(deps, caller(request), 1), forms), status);
    const back = (reply: FastifyReply, done: string, anchor: string) => reply.code(303).header('location', `/dashboard?done=${done}#${anchor}`).send();

    /** The donate link a form came from (its fields checked again), undefined for none, or null when a refusal page was sent. */
    const linkOf = async (request: FastifyRequest, reply: FastifyReply): Promise<DonateLink | undefined | null> => {
      const body = request.body as URLSearchParams;
      if (body.get('from') !== 'link') return undefined;
      try {
        return await readLink(deps, (name) => body.get(name));
      } catch (error) {
        if (!isLinkError(error)) throw error;
        await sendPage(reply, errorPage(request.visitor, 422, 'This donate link cannot be used', linkProblem(error), error.code), 422);
        return null;
      }
    };
    const orgOf = async (ein: string) => {
      const found = await charityByEin(deps, ein);
      return { ein, name: found.view.name, public_path: found.view.public_path };
    };

    web.get('/dashboard', async (request, reply) => {
      const query = request.query as { page?: string; done?: string };
      return sendPage(reply, dashboardPage(request.visitor, await loadDashboard(deps, caller(request), pageParam(query.page)), {}, query.done));
    });

    web.post('/dashboard/donations', async (request, reply) => {
      const form = new FormReader(request.body as URLSearchParams);
      // A donate link's confirmation (rules §23): its fields read again, with the same rules.
      const link = await linkOf(request, reply);
      if (link === null) return reply;
      const target = form.text('ein', { required: true, max: 200 });
      const amount = form.amount('amount', DONATION_MIN_CENTS);
      const note = form.text('note', { max: 1000 });
      const visibility = form.oneOf('visibility', ['public', 'private'] as const, 'public');
      const named = await whichCharity(directory, target);
      let ein = 'ein' in named ? named.ein : null;
      if ('matches' in named && target !== '') {
        // No JavaScript, or a name typed without picking a suggestion: offer the best matches.
        const [only] = named.matches;
        if (only === undefined) form.fail('ein', 'matches no non-profit; try other words or the EIN');
        else if (named.matches.length === 1 && form.ok) ein = only.ein;
        else return rerender(request, reply, { donation: { ...form.state('Choose the non-profit you meant.'), choices: named.matches } }, 200);
      }
      // The form of a charity's page answers there: its errors and questions stay beside it.
      const fromCharity = (request.body as URLSearchParams).get('from') === 'charity' && ein !== null;
      // A fundraiser's page names it (rules §22), and its form answers there too.
      const fundraiser =
        /^\d{1,15}$/.exec((request.body as URLSearchParams).get('fundraiser_id') ?? '') === null ? undefined : Number((request.body as URLSearchParams).get('fundraiser_id'));
      const viewer = { user_id: sessionOf(request).user_id, book: 'live' as const };
      const answer = async (state: NonNullable<DashboardForms['donation']>, status: number) =>
        link !== undefined && ein !== null
          ? sendPage(reply.header('content-security-policy', linkFormPolicy(link)), donateLinkPage(request.visitor, await orgOf(ein), link, state), status)
          : fundraiser !== undefined
            ? sendPage(reply, fundraiserPage(request.visitor, await fundraiserForViewer(deps, viewer, fundraiser), { state }), status)
            : fromCharity && ein !== null
              ? sendPage(reply, await charityPageOf(deps, request.visitor, await charityByEin(deps, ein), state), status)
              : rerender(request, reply, { donation: state }, status);
      if (!form.ok || ein === null) return answer(form.state(), 422);
      const who = caller(request);
      // More than is available: asked once, saying until when it would wait (a request holds nothing and is not asked).
      if (!givesByRequest(who) && (request.body as URLSearchParams).get('wait') !== 'yes') {
        const balance = await getBalance(deps, who);
        if (amount > balance.available_balance_cents) {
          return answer(
            { ...form.state(), wait: { amount_cents: amount, available_cents: balance.available_balance_cents, pending_cents: balance.pending_deposit_balance_cents } },
            200,
          );
        }
      }
      const input = {
        amount_cents: amount,
        ein,
        visibility,
        ...(note === '' ? {} : { note }),
        ...(fundraiser === undefined ? {} : { fundraiser_id: fundraiser }),
        ...(link === undefined ? {} : linkDonationFields(link)),
      };
      const result = await attempt(() => createDonation(deps, who, input));
      if (!result.ok) return answer(stateOf(result.error, form.values), STATUS_OF_KIND[result.error.kind]);
      const done = result.value.status === 'scheduled' ? 'donation_created' : result.value.status === 'requested' ? 'donation_requested' : 'donation_waiting';
      if (fundraiser !== undefined) return reply.code(303).header('location', `/fundraisers/${fundraiser}?done=${done}#give`).send();
      const success = link === undefined ? undefined : successLocation(link, 'donation_id', result.value.id);
      if (success !== undefined) return reply.code(303).header('location', success).send();
      return back(reply, done, 'donations');
    });

    web.post('/dashboard/donations/:id/cancel', async (request, reply) => {
      await cancelDonation(deps, caller(request), idParam(request));
      return back(reply, 'donation_cancelled', 'donations');
    });

    web.post('/dashboard/gifts', async (request, reply) => {
      const form = new FormReader(request.body as URLSearchParams);
      const name = form.text('name', { required: true, max: 200 });
      const amount = form.amount('amount', GIFT_MIN_CENTS);
      const message = form.text('message', { max: 1000 });
      const email = form.text('email', { max: 320 });
      if (email !== '' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) form.fail('email', 'must be an email address');
      if (!form.ok) return rerender(request, reply, { gift: form.state() }, 422);
      const input = { name, amount_cents: amount, ...(message === '' ? {} : { message }), ...(email === '' ? {} : { email }) };
      const result = await attempt(() => createGift(deps, caller(request), input));
      if (!result.ok) return rerender(request, reply, { gift: stateOf(result.error, form.values) }, STATUS_OF_KIND[result.error.kind]);
      return back(reply, 'gift_created', 'gifts');
    });

    web.post('/dashboard/scheduled', async (request, reply) => {
      const form = new FormReader(request.body as URLSearchParams);
      const link = await linkOf(request, reply);
      if (link === null) return reply;
      const ein = form.ein('ein', { required: true });
      const amount = form.amount('amount', DONATION_MIN_CENTS);
      const frequency = form.oneOf('frequency', SCHEDULE_FREQUENCIES, 'Monthly');
      const nextDate = form.text('next_date', { max: 10 });
      if (nextDate !== '' && !isCalendarDay(nextDate)) form.fail('next_date', 'must be a date');
      const answer = async (state: FormState, status: number) =>
        link !== undefined && ein !== null
          ? sendPage(reply.header('content-security-policy', linkFormPolicy(link)), donateLinkPage(request.visitor, await orgOf(ein), link, state), status)
          : rerender(request, reply, { schedule: state }, status);
      if (!form.ok || ein === null) return answer(form.state(), 422);
      // A recurring donation keeps a link's id and metadata (its share and words are a donation's choices).
      const fields = link === undefined ? undefined : linkDonationFields(link);
      const partner =
        fields === undefined
          ? {}
          : {
              metadata: fields.metadata,
              ...(fields.external_id === undefined ? {} : { external_id: fields.external_id }),
              ...(fields.via_app_id === undefined ? {} : { via_app_id: fields.via_app_id }),
            };
      const input = { ein, amount_cents: amount, frequency, ...(nextDate === '' ? {} : { next_date: nextDate }), ...partner };
      const result = await attempt(() => createSchedule(deps, caller(request), input));
      if (!result.ok) return answer(stateOf(result.error, form.values), STATUS_OF_KIND[result.error.kind]);
      const success = link === undefined ? undefined : successLocation(link, 'scheduled_donation_id', result.value.id);
      if (success !== undefined) return reply.code(303).header('location', success).send();
      return back(reply, 'schedule_created', 'recurring');
    });

    web.post('/dashboard/scheduled/:id/cancel', async (request, reply) => {
      await cancelSchedule(deps, caller(request), idParam(request));
      return back(reply, 'schedule_cancelled', 'recurring');
    });
  };
}
