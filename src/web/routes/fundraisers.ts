// Opening a fundraiser on the web (rules §22): GET /fundraisers/new (?ein= from an organisation's
// page) and POST /fundraisers, which asks the same use case, and so the same rule (`fundraise`:
// an advisor or organizer of the fund acted on), as POST /v1/fundraisers.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { callerOf } from '../../modules/accounts/index.ts';
import { createFundraiser } from '../../modules/fundraisers/index.ts';
import { charityByEin } from '../../modules/nonprofits/index.ts';
import { STATUS_OF_KIND } from '../../http/errors.ts';
import { isCalendarDay } from '../../shared/days.ts';
import { attempt, FormReader, stateOf } from '../forms.ts';
import type { FormState } from '../layout.ts';
import { newFundraiserPage } from '../pages/fundraiser-new.ts';
import { requireSession, sendPage, sessionOf, type WebContext } from '../context.ts';

export function fundraiserFormRoutes({ deps }: WebContext) {
  return async (web: FastifyInstance) => {
    /** The organisation a form names, when it is one the directory knows. */
    const orgOf = async (ein: string | null | undefined) => {
      if (ein === null || ein === undefined || !/^\d{9}$/.test(ein)) return undefined;
      const found = await attempt(() => charityByEin(deps, ein));
      return found.ok ? { ein, name: found.value.view.name } : undefined;
    };
    const show = async (request: FastifyRequest, reply: FastifyReply, ein: string | null | undefined, state?: FormState, status = 200) =>
      sendPage(reply, newFundraiserPage(request.visitor, await orgOf(ein), state), status);

    web.get('/fundraisers/new', { preHandler: requireSession }, async (request, reply) => show(request, reply, (request.query as { ein?: string }).ein?.replace('-', '')));

    web.post('/fundraisers', { preHandler: requireSession }, async (request, reply) => {
      const form = new FormReader(request.body as URLSearchParams);
      const ein = form.ein('ein', { required: true });
      const title = form.text('title', { required: true, max: 120 });
      const story = form.text('story', { max: 5000 });
      const goal = form.dollars('goal', { required: true, minCents: 100 });
      const offline = form.dollars('offline_amount', { required: false, minCents: 0 });
      const startsOn = form.text('starts_on', { max: 10 });
      const endsOn = form.text('ends_on', { max: 10 });
      for (const [name, value] of [
        ['starts_on', startsOn],
        ['ends_on', endsOn],
      ] as const)
        if (value !== '' && !isCalendarDay(value)) form.fail(name, 'must be a day of the calendar, YYYY-MM-DD');
      if (!form.ok || ein === null || goal === null) return show(request, reply, ein, form.state(), 422);
      const made = await attempt(() =>
        createFundraiser(deps, callerOf(sessionOf(request)), {
          ein,
          title,
          goal_cents: goal,
          ...(story === '' ? {} : { story }),
          ...(offline === null ? {} : { offline_cents: offline }),
          ...(startsOn === '' ? {} : { starts_on: startsOn }),
          ...(endsOn === '' ? {} : { ends_on: endsOn }),
        }),
      );
      if (!made.ok) return show(request, reply, ein, stateOf(made.error, form.values), STATUS_OF_KIND[made.error.kind]);
      return reply.code(303).header('location', `/fundraisers/${made.value.id}?done=fundraiser_opened`).send();
    });
  };
}
