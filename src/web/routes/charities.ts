// The pages of an organisation's own people (docs/rules.md §18): claim it with
// an address at its web domain, confirm by the mailed link (signed in to the
// account that asked), then, once an operator approved, see its payments with
// their remittances and give its bank details.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { claimLinkTarget, claimsOfUser, claimTarget, confirmClaim, startClaim } from '../../modules/charities/index.ts';
import { charityAccount, charityRemittance, setOwnBankDetails } from '../../modules/payments/index.ts';
import { AppError } from '../../shared/errors.ts';
import { STATUS_OF_KIND } from '../../http/errors.ts';
import { attempt, FormReader, problemHeaders, stateOf } from '../forms.ts';
import { charityAccountPage, claimPage, confirmClaimPage } from '../pages/charities.ts';
import { requireSession, sendPage, sessionOf, type WebContext } from '../context.ts';
import type { FormState } from '../layout.ts';

const ein = (request: FastifyRequest) => (request.params as { ein: string }).ein;
const done = (request: FastifyRequest) => (request.query as { done?: string }).done;

function token(request: FastifyRequest): string {
  const raw = (request.params as { token: string }).token;
  if (!/^[A-Za-z0-9_-]{43}$/.test(raw)) throw new AppError('not_found', 'claim_link_invalid', 'this link is unknown, used or expired: claim again');
  return raw;
}

export function charityRoutes({ deps }: WebContext) {
  return async (web: FastifyInstance) => {
    web.addHook('preHandler', requireSession);

    const showClaim = async (request: FastifyRequest, reply: FastifyReply, options: { state?: FormState; done?: string }, status = 200) => {
      const { view, domain } = await claimTarget(deps, ein(request));
      const claim = (await claimsOfUser(deps, sessionOf(request).user_id)).find((c) => c.ein === view.ein);
      return sendPage(reply, claimPage(request.visitor, { ein: view.ein, name: view.name, public_path: view.public_path, domain, claim }, options), status);
    };

    web.get('/charities/:ein/claim', async (request, reply) => showClaim(request, reply, { ...(done(request) === undefined ? {} : { done: done(request) as string }) }));

    web.post('/charities/:ein/claim', async (request, reply) => {
      const form = new FormReader(request.body as URLSearchParams);
      const input = { email: form.text('email', { required: true, max: 254 }), website: form.text('website', { max: 200 }) };
      if (!form.ok) return showClaim(request, reply, { state: form.state() }, 422);
      const session = sessionOf(request);
      const result = await attempt(() => startClaim(deps, session.user_id, ein(request), { ...input, person: session.name }));
      if (!result.ok) {
        problemHeaders(reply, result.error);
        return showClaim(request, reply, { state: stateOf(result.error, form.values) }, STATUS_OF_KIND[result.error.kind]);
      }
      return reply
        .code(303)
        .header('location', `/charities/${ein(request)}/claim?done=claim_sent`)
        .send();
    });

    web.get('/charities/claims/confirm/:token', async (request, reply) => {
      const t = token(request);
      return sendPage(reply, confirmClaimPage(request.visitor, { ...(await claimLinkTarget(deps, sessionOf(request).user_id, t)), token: t }));
    });

    web.post('/charities/claims/confirm/:token', async (request, reply) => {
      const confirmed = await confirmClaim(deps, sessionOf(request).user_id, token(request));
      return reply.code(303).header('location', `/charities/${confirmed.ein}/claim?done=claim_confirmed`).send();
    });

    const showAccount = async (request: FastifyRequest, reply: FastifyReply, options: { state?: FormState; done?: string }, status = 200) =>
      sendPage(reply, charityAccountPage(request.visitor, await charityAccount(deps, sessionOf(request).user_id, ein(request)), options), status);

    web.get('/charities/:ein/manage', async (request, reply) => showAccount(request, reply, { ...(done(request) === undefined ? {} : { done: done(request) as string }) }));

    web.post('/charities/:ein/bank-details', async (request, reply) => {
      const form = new FormReader(request.body as URLSearchParams);
      const input = {
        holder: form.text('holder', { required: true, max: 100 }),
        routing: form.text('routing', { required: true, max: 20 }),
        account: form.text('account', { required: true, max: 30 }),
        account_type: form.oneOf('account_type', ['checking', 'savings'] as const, 'checking'),
      };
      // The account number is never sent back into the page.
      const values = { ...form.values, account: '' };
      if (!form.ok) return showAccount(request, reply, { state: { ...form.state(), values } }, 422);
      const session = sessionOf(request);
      const result = await attempt(() => setOwnBankDetails(deps, { user_id: session.user_id, name: session.name }, ein(request), input));
      if (!result.ok) return showAccount(request, reply, { state: stateOf(result.error, values) }, STATUS_OF_KIND[result.error.kind]);
      return reply
        .code(303)
        .header('location', `/charities/${ein(request)}/manage?done=bank_details_saved`)
        .send();
    });

    web.get('/charities/:ein/payments/:id/remittance.pdf', async (request, reply) => {
      const raw = (request.params as { id: string }).id;
      if (!/^\d{1,15}$/.test(raw)) throw new AppError('not_found', 'payment_not_found', `no payment ${raw}`);
      const pdf = await charityRemittance(deps, sessionOf(request).user_id, ein(request), Number(raw));
      return reply.type('application/pdf').header('content-disposition', `inline; filename="remittance-${raw}.pdf"`).send(Buffer.from(pdf));
    });
  };
}
