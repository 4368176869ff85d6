// The fund one acts on (rules §20): its members and invitations, the funds one
// may act on, the requests waiting; an invitation's link, accepted signed in.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { callerOf } from '../../modules/accounts/index.ts';
import { acceptInvitation, changeMemberRole, fundActivity, chooseFund, fundsOf, invitationByLink, inviteMember, listMembers, removeMember } from '../../modules/members/api.ts';
import { decideRequest, waitingRequests } from '../../modules/donations/index.ts';
import { isRole, ROLES } from '../../modules/members/index.ts';
import { STATUS_OF_KIND } from '../../http/errors.ts';
import { attempt, FormReader, stateOf } from '../forms.ts';
import { fundPage, joinPage } from '../pages/fund.ts';
import type { FormState } from '../layout.ts';
import { requireSession, sendPage, sessionOf, type WebContext } from '../context.ts';

export function fundRoutes({ deps }: WebContext) {
  return async (web: FastifyInstance) => {
    const caller = (request: FastifyRequest) => callerOf(sessionOf(request));
    const show = async (request: FastifyRequest, reply: FastifyReply, options: { state?: FormState; done?: string }, status = 200) => {
      const c = caller(request);
      const [members, funds, requests, activity] = await Promise.all([listMembers(deps, c), fundsOf(deps, c), waitingRequests(deps, c), fundActivity(deps, c)]);
      const current = funds.find((f) => f.current);
      return sendPage(
        reply,
        fundPage(request.visitor, { role: c.role, actor_id: c.actor_id, fund_name: current?.name ?? 'Your fund', members, funds, requests, activity }, options),
        status,
      );
    };
    const refused = (request: FastifyRequest, reply: FastifyReply, values: Record<string, string>) => (error: Parameters<typeof stateOf>[0]) =>
      show(request, reply, { state: stateOf(error, values) }, STATUS_OF_KIND[error.kind]);
    const done = (reply: FastifyReply, code: string) => reply.code(303).header('location', `/fund?done=${code}`).send();
    const idOf = (request: FastifyRequest) => {
      const raw = (request.params as { id: string }).id;
      return /^\d{1,15}$/.test(raw) ? Number(raw) : 0;
    };

    web.get('/fund', { preHandler: requireSession }, async (request, reply) => show(request, reply, { done: (request.query as { done?: string }).done ?? '' }));

    web.post('/fund/members', { preHandler: requireSession }, async (request, reply) => {
      const form = new FormReader(request.body as URLSearchParams);
      const email = form.text('email', { required: true, max: 254 });
      const role = form.oneOf('role', ROLES, 'family');
      if (!form.ok) return show(request, reply, { state: form.state() }, 422);
      const result = await attempt(() => inviteMember(deps, caller(request), { email, role }));
      return result.ok ? done(reply, 'member_invited') : refused(request, reply, form.values)(result.error);
    });

    web.post('/fund/members/:id/role', { preHandler: requireSession }, async (request, reply) => {
      const role = (request.body as URLSearchParams | undefined)?.get('role') ?? '';
      if (!isRole(role)) return show(request, reply, { state: { values: {}, errors: { role: 'must be organizer, advisor or family' } } }, 422);
      const result = await attempt(() => changeMemberRole(deps, caller(request), idOf(request), role));
      return result.ok ? done(reply, 'member_changed') : refused(request, reply, {})(result.error);
    });

    web.post('/fund/members/:id/remove', { preHandler: requireSession }, async (request, reply) => {
      const result = await attempt(() => removeMember(deps, caller(request), idOf(request)));
      return result.ok ? done(reply, 'member_removed') : refused(request, reply, {})(result.error);
    });

    web.post('/fund/current', { preHandler: requireSession }, async (request, reply) => {
      const raw = (request.body as URLSearchParams | undefined)?.get('fund_id') ?? '';
      const result = await attempt(() => chooseFund(deps, caller(request), /^\d{1,15}$/.test(raw) ? Number(raw) : 0));
      return result.ok ? reply.code(303).header('location', '/dashboard?done=fund_chosen').send() : refused(request, reply, {})(result.error);
    });

    for (const action of ['approve', 'decline'] as const) {
      web.post(`/fund/requests/:id/${action}`, { preHandler: requireSession }, async (request, reply) => {
        const form = new FormReader(request.body as URLSearchParams);
        const reason = action === 'decline' ? form.text('reason', { required: true, max: 500 }) : '';
        if (!form.ok) return show(request, reply, { state: form.state('Say why you decline the request.') }, 422);
        const result = await attempt(() => decideRequest(deps, caller(request), idOf(request), action === 'approve' ? { approve: true } : { approve: false, reason }));
        return result.ok ? done(reply, action === 'approve' ? 'request_approved' : 'request_declined') : refused(request, reply, {})(result.error);
      });
    }

    const invitation = async (request: FastifyRequest, reply: FastifyReply, state?: FormState, status = 200) => {
      const token = (request.params as { token: string }).token;
      const found = await attempt(() => invitationByLink(deps, token));
      if (!found.ok) return sendPage(reply, joinPage(request.visitor, { fund_name: '', inviter: '', role: '', email: null, token }, { state: stateOf(found.error, {}) }), 404);
      const i = found.value;
      return sendPage(
        reply,
        joinPage(request.visitor, { fund_name: i.fund_name, inviter: i.inviter, role: i.role, email: i.email, token }, state === undefined ? {} : { state }),
        status,
      );
    };

    web.get('/join/:token', async (request, reply) => invitation(request, reply));

    web.post('/join/:token', { preHandler: requireSession }, async (request, reply) => {
      const result = await attempt(() => acceptInvitation(deps, sessionOf(request).user_id, (request.params as { token: string }).token));
      if (!result.ok) return invitation(request, reply, stateOf(result.error, {}), STATUS_OF_KIND[result.error.kind]);
      return reply.code(303).header('location', '/fund?done=invitation_accepted').send();
    });
  };
}
