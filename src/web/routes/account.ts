// Sign up, sign in, sign out.
import type { FastifyInstance } from 'fastify';
import {
  acceptInvitation,
  addressStatus,
  askToConfirm,
  changeAddress,
  confirmAddress,
  invitationWorks,
  requestPasswordReset,
  resetLinkWorks,
  resetPassword,
  signIn,
  signOut,
  signUp,
} from '../../modules/accounts/index.ts';
import { AppError } from '../../shared/errors.ts';
import { attempt, FormReader, problemHeaders, safeNext, stateOf } from '../forms.ts';
import { STATUS_OF_KIND } from '../../http/errors.ts';
import { addressPage, confirmAddressPage, forgotPage, invitationPage, resetPage, signInPage, signUpPage } from '../pages/account.ts';
import { cookieHeader, SESSION_COOKIE } from '../visitor.ts';
import { requireSession, sendPage, sessionOf, type WebContext } from '../context.ts';
import { appSigningIn } from './apps.ts';

export function accountRoutes({ deps, limiter, oidc }: WebContext) {
  const sessionCookie = (token: string) => cookieHeader(deps, SESSION_COOKIE, token, deps.config.sessionTtlHours * 3600);
  return async (web: FastifyInstance) => {
    // Where to go once the fund is open: back to the page that sent the person (a gift's), else the dashboard.
    const afterSignUp = (next: string | null | undefined) => (next === undefined || next === null || next === '' ? '/dashboard?done=welcome' : safeNext(next));
    // An address proven by the link mailed to it (rules §15): opened signed in, confirmed by the button.
    web.get('/account/confirm/:token', { preHandler: requireSession }, async (request, reply) =>
      sendPage(reply, confirmAddressPage(request.visitor, (request.params as { token: string }).token)),
    );
    web.post('/account/confirm/:token', { preHandler: requireSession }, async (request, reply) => {
      const token = (request.params as { token: string }).token;
      const result = await attempt(() => confirmAddress(deps, sessionOf(request).user_id, token));
      if (!result.ok) return sendPage(reply, confirmAddressPage(request.visitor, token, stateOf(result.error, {})), STATUS_OF_KIND[result.error.kind]);
      return reply.code(303).header('location', '/dashboard?done=address_confirmed').send();
    });
    web.post('/account/confirm', { preHandler: requireSession }, async (request, reply) => {
      await askToConfirm(deps, sessionOf(request).user_id, { force: true });
      return reply.code(303).header('location', '/settings/address?done=confirmation_sent').send();
    });
    web.get('/settings/address', { preHandler: requireSession }, async (request, reply) => {
      const done = (request.query as { done?: string }).done;
      return sendPage(reply, addressPage(request.visitor, await addressStatus(deps, sessionOf(request).user_id), undefined, done));
    });
    web.post('/settings/address', { preHandler: requireSession }, async (request, reply) => {
      // Each try costs a password check: limited as sign-ins are.
      await limiter.hit(`address:${request.ip}`, deps.config.signUpsPerMinute, reply);
      const form = new FormReader(request.body as URLSearchParams);
      const email = form.text('email', { required: true, max: 254 });
      const password = (request.body as URLSearchParams | undefined)?.get('password') ?? '';
      const userId = sessionOf(request).user_id;
      if (!form.ok) return sendPage(reply, addressPage(request.visitor, await addressStatus(deps, userId), form.state()), 422);
      const result = await attempt(() => changeAddress(deps, userId, { email, password }));
      if (!result.ok)
        return sendPage(reply, addressPage(request.visitor, await addressStatus(deps, userId), stateOf(result.error, form.values)), STATUS_OF_KIND[result.error.kind]);
      return reply.code(303).header('location', '/settings/address?done=address_link_sent').send();
    });

    web.get('/signup', async (request, reply) => {
      const { next, email } = request.query as { next?: string; email?: string };
      // An invitation's link names the address it went to: the form starts with it (the person may change it).
      const prefill = typeof email === 'string' && email.length <= 254 && /^[^\s@]+@[^\s@]+$/.test(email) ? { values: { email } } : undefined;
      return sendPage(reply, signUpPage(request.visitor, prefill, next === undefined ? undefined : safeNext(next)));
    });

    web.post('/signup', async (request, reply) => {
      // Accounts are cheap to make and each costs a password hash: a few a minute per address.
      await limiter.hit(`signup:${request.ip}`, deps.config.signUpsPerMinute, reply);
      const form = new FormReader(request.body as URLSearchParams);
      const input = {
        name: form.text('name', { max: 200 }),
        email: form.text('email', { max: 254 }),
        password: (request.body as URLSearchParams | undefined)?.get('password') ?? '',
      };
      const result = await attempt(() => signUp(deps, input));
      const next = (request.body as URLSearchParams | undefined)?.get('next');
      if (!result.ok)
        return sendPage(
          reply,
          signUpPage(request.visitor, stateOf(result.error, form.values), next === null || next === undefined || next === '' ? undefined : safeNext(next)),
          STATUS_OF_KIND[result.error.kind],
        );
      if (request.visitor.token !== undefined) await signOut(deps, request.visitor.token);
      return reply.code(303).header('set-cookie', sessionCookie(result.value.token)).header('location', afterSignUp(next)).send();
    });

    web.get('/signin', async (request, reply) => {
      const query = request.query as { next?: string; done?: string };
      const next = safeNext(query.next);
      return sendPage(reply, signInPage(request.visitor, next, undefined, query.done, await appSigningIn(deps, oidc, next)));
    });

    web.post('/signin', async (request, reply) => {
      const body = request.body as URLSearchParams | undefined;
      const form = new FormReader(body);
      const email = form.text('email', { max: 254 });
      const next = safeNext(body?.get('next'));
      const result = await attempt(() => signIn(deps, { email, password: body?.get('password') ?? '', ip: request.ip }, request.visitor.token));
      if (!result.ok) {
        problemHeaders(reply, result.error);
        return sendPage(
          reply,
          signInPage(request.visitor, next, stateOf(result.error, form.values), undefined, await appSigningIn(deps, oidc, next)),
          STATUS_OF_KIND[result.error.kind],
        );
      }
      // A new session id on every sign-in: one planted in the browser beforehand opens nothing.
      return reply.code(303).header('set-cookie', sessionCookie(result.value.token)).header('location', next).send();
    });

    // A sign-in invitation (almoner users create --invite): a one-time link to choose email and password.
    // Its page keeps the site's Referrer-Policy (same-origin: the link never leaves as a Referer);
    // no-referrer would make browsers send `Origin: null` with its form, which the CSRF check refuses.
    const invitation = (request: { params: unknown }) => {
      const token = (request.params as { token: string }).token;
      if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) throw new AppError('not_found', 'invitation_not_found', 'this invitation is unknown, used or expired');
      return token;
    };
    web.get('/invite/:token', async (request, reply) => {
      const token = invitation(request);
      if (!(await invitationWorks(deps, token))) throw new AppError('not_found', 'invitation_not_found', 'this invitation is unknown, used or expired');
      return sendPage(reply, invitationPage(request.visitor, token));
    });
    web.post('/invite/:token', async (request, reply) => {
      const token = invitation(request);
      await limiter.hit(`signup:${request.ip}`, deps.config.signUpsPerMinute, reply);
      const form = new FormReader(request.body as URLSearchParams);
      const email = form.text('email', { max: 254 });
      const result = await attempt(() => acceptInvitation(deps, token, email, (request.body as URLSearchParams | undefined)?.get('password') ?? ''));
      if (!result.ok) {
        if (result.error.code === 'invitation_not_found') throw result.error;
        return sendPage(reply, invitationPage(request.visitor, token, stateOf(result.error, form.values)), STATUS_OF_KIND[result.error.kind]);
      }
      if (request.visitor.token !== undefined) await signOut(deps, request.visitor.token);
      return reply.code(303).header('set-cookie', sessionCookie(result.value.token)).header('location', '/dashboard?done=welcome').send();
    });

    // Forgot password: the same answer whether or not the address has an account (no account discovery).
    web.get('/forgot', async (request, reply) => sendPage(reply, forgotPage(request.visitor)));
    web.post('/forgot', async (request, reply) => {
      await limiter.hit(`forgot:${request.ip}`, deps.config.signUpsPerMinute, reply);
      const form = new FormReader(request.body as URLSearchParams);
      const email = form.text('email', { required: true, max: 254 });
      if (!form.ok) return sendPage(reply, forgotPage(request.visitor, form.state()), 422);
      const result = await attempt(() => requestPasswordReset(deps, email));
      if (!result.ok) return sendPage(reply, forgotPage(request.visitor, stateOf(result.error, form.values)), STATUS_OF_KIND[result.error.kind]);
      return sendPage(reply, forgotPage(request.visitor, undefined, true));
    });
    const resetToken = (request: { params: unknown }) => {
      const token = (request.params as { token: string }).token;
      if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) throw new AppError('not_found', 'reset_link_invalid', 'this link is unknown, used or expired: ask for a new one');
      return token;
    };
    web.get('/reset/:token', async (request, reply) => {
      const token = resetToken(request);
      if (!(await resetLinkWorks(deps, token))) throw new AppError('not_found', 'reset_link_invalid', 'this link is unknown, used or expired: ask for a new one');
      return sendPage(reply, resetPage(request.visitor, token));
    });
    web.post('/reset/:token', async (request, reply) => {
      const token = resetToken(request);
      const result = await attempt(() => resetPassword(deps, token, (request.body as URLSearchParams | undefined)?.get('password') ?? ''));
      if (!result.ok) {
        if (result.error.code === 'reset_link_invalid') throw result.error;
        return sendPage(reply, resetPage(request.visitor, token, stateOf(result.error, {})), STATUS_OF_KIND[result.error.kind]);
      }
      return reply
        .code(303)
        .header('set-cookie', cookieHeader(deps, SESSION_COOKIE, '', 0))
        .header('location', '/signin?done=password_reset')
        .send();
    });

    web.post('/signout', async (request, reply) => {
      if (request.visitor.token !== undefined) await signOut(deps, request.visitor.token);
      return reply
        .code(303)
        .header('set-cookie', cookieHeader(deps, SESSION_COOKIE, '', 0))
        .header('location', '/signin?done=signed_out')
        .send();
    });
  };
}
