// /donate/<ein>: a donate link (docs/rules.md §23). Signed out, the donor signs in (or up) and
// comes back; signed in, they confirm on a prefilled form. A link whose fields or return
// addresses are refused says so, and sends no one anywhere.
import type { FastifyInstance } from 'fastify';
import { charityByEin, normalizeEin } from '../../modules/nonprofits/index.ts';
import { AppError } from '../../shared/errors.ts';
import { requireSession, sendPage, type WebContext } from '../context.ts';
import { donateLinkPage } from '../pages/donate.ts';
import { errorPage } from '../pages/public.ts';
import { isLinkError, linkFormPolicy, linkProblem, readLink } from '../donate-link.ts';

export function donateRoutes({ deps }: WebContext) {
  return async (web: FastifyInstance) => {
    web.get('/donate/:ein', { preHandler: requireSession }, async (request, reply) => {
      const ein = normalizeEin((request.params as { ein: string }).ein);
      if (ein === null) throw new AppError('not_found', 'non_profit_not_found', 'there is no non-profit at this address');
      const found = await charityByEin(deps, ein);
      const query = request.query as Record<string, string | undefined>;
      try {
        const link = await readLink(deps, (name) => query[name]);
        if (!found.receives)
          return sendPage(
            reply,
            errorPage(request.visitor, 422, 'This organisation cannot receive donations', `${found.view.name} may not be given to now.`, 'non_profit_ineligible'),
            422,
          );
        reply.header('content-security-policy', linkFormPolicy(link));
        return sendPage(reply, donateLinkPage(request.visitor, { ein, name: found.view.name, public_path: found.view.public_path }, link));
      } catch (error) {
        if (!isLinkError(error)) throw error;
        const status = error.kind === 'not_found' ? 404 : 422;
        return sendPage(reply, errorPage(request.visitor, status, 'This donate link cannot be used', linkProblem(error), error.code), status);
      }
    });
  };
}
