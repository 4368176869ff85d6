// Sign up and sign in.
import { html, type Html } from '../html.ts';
import { csrfField, errorSummary, field, layout, notice, type FormState } from '../layout.ts';
import type { Visitor } from '../visitor.ts';
import { PASSWORD_MIN } from '../../modules/accounts/index.ts';

/** `next`: where to go once the fund is open (a path of this site, already checked). */
export function signUpPage(v: Visitor, state?: FormState, next?: string): Html {
  return layout(
    v,
    'Sign up',
    html`<section class="narrow">
    <h1>Open your fund</h1>
    <p>Give to any US non-profit from one fund. It takes a minute.</p>
    ${errorSummary(state)}
    <form method="post" action="/signup" novalidate>
      ${csrfField(v)}
      ${next === undefined ? '' : html`<input type="hidden" name="next" value="${next}">`}
      ${field({ name: 'name', label: 'Your name', state, required: true, autocomplete: 'name', maxlength: 200 })}
      ${field({ name: 'email', label: 'Email', type: 'email', state, required: true, autocomplete: 'email' })}
      ${field({ name: 'password', label: 'Password', type: 'password', state, required: true, autocomplete: 'new-password', hint: `At least ${PASSWORD_MIN} characters. A few unrelated words make a strong one.` })}
      <button type="submit">Create my account</button>
    </form>
    <p>Already have an account? <a href="/signin${next === undefined ? '' : `?next=${encodeURIComponent(next)}`}">Sign in</a>.</p>
  </section>`,
  );
}

/** The sign-in page; `forApp` names the app that sent the donor here (Login with Almoner). */
export function signInPage(v: Visitor, next: string, state?: FormState, done?: string, forApp?: string): Html {
  return layout(
    v,
    'Sign in',
    html`<section class="narrow">
    <h1>Sign in</h1>
    ${forApp === undefined ? '' : html`<p class="notice" id="for-app"><strong>${forApp}</strong> asks you to sign in with your Almoner account. Next you see what it may do, and choose.</p>`}
    ${notice(done)}
    ${errorSummary(state)}
    <form method="post" action="/signin" novalidate>
      ${csrfField(v)}
      <input type="hidden" name="next" value="${next}">
      ${field({ name: 'email', label: 'Email', type: 'email', state, required: true, autocomplete: 'email' })}
      ${field({ name: 'password', label: 'Password', type: 'password', state, required: true, autocomplete: 'current-password' })}
      <button type="submit">Sign in</button>
    </form>
    <p><a href="/forgot">Forgot your password?</a> New here? <a href="/signup${next === '/' ? '' : `?next=${encodeURIComponent(next)}`}">Open a fund</a>.</p>
  </section>`,
  );
}

/** The page an invitation link opens: the invited person chooses their sign-in. */
export function invitationPage(v: Visitor, token: string, state?: FormState): Html {
  return layout(
    v,
    'Your invitation',
    html`<section class="narrow">
    <h1>Choose how you sign in</h1>
    <p>Your fund is ready. Choose the email and password you will sign in with; this link works once.</p>
    ${errorSummary(state)}
    <form method="post" action="/invite/${token}" novalidate>
      ${csrfField(v)}
      ${field({ name: 'email', label: 'Email', type: 'email', state, required: true, autocomplete: 'email' })}
      ${field({ name: 'password', label: 'Password', type: 'password', state, required: true, autocomplete: 'new-password', hint: `At least ${PASSWORD_MIN} characters. A few unrelated words make a strong one.` })}
      <button type="submit">Sign in to my fund</button>
    </form>
  </section>`,
  );
}

/** Asking for a password reset link; `sent`: the answer, the same whether or not the address has an account. */
export function forgotPage(v: Visitor, state?: FormState, sent = false): Html {
  return layout(
    v,
    'Forgot your password',
    html`<section class="narrow">
    <h1>Forgot your password?</h1>
    ${
      sent
        ? html`<div class="notice ok" role="status">If an account uses that address, a link to choose a new password is on its way. It works once, for one hour.</div>
    <p><a href="/signin">Back to sign in</a></p>`
        : html`<p>Type the email you sign in with. We will send a link to choose a new password.</p>
    ${errorSummary(state)}
    <form method="post" action="/forgot" novalidate>
      ${csrfField(v)}
      ${field({ name: 'email', label: 'Email', type: 'email', state, required: true, autocomplete: 'email' })}
      <button type="submit">Send me a link</button>
    </form>`
    }
  </section>`,
  );
}

/** The page a reset link opens: a new password. */
export function resetPage(v: Visitor, token: string, state?: FormState): Html {
  return layout(
    v,
    'Choose a new password',
    html`<section class="narrow">
    <h1>Choose a new password</h1>
    <p>This link works once. Setting a password signs you out everywhere.</p>
    ${errorSummary(state)}
    <form method="post" action="/reset/${token}" novalidate>
      ${csrfField(v)}
      ${field({ name: 'password', label: 'New password', type: 'password', state, required: true, autocomplete: 'new-password', hint: `At least ${PASSWORD_MIN} characters.` })}
      <button type="submit">Set my password</button>
    </form>
  </section>`,
  );
}

/** A confirmation link, opened: the address is confirmed only by the button (a POST from the account's session). */
export function confirmAddressPage(v: Visitor, token: string, state?: FormState): Html {
  return layout(
    v,
    'Confirm your address',
    html`<section class="narrow">
    <h1>Confirm your address</h1>
    ${errorSummary(state)}
    <p>Confirming proves this address is yours: gifts and invitations sent to it then reach your account.</p>
    <form method="post" action="/account/confirm/${token}">
      ${csrfField(v)}
      <button type="submit">Confirm my address</button>
    </form>
  </section>`,
  );
}

/** Change the address one signs in with: a link goes to the new one, which replaces the old once followed. */
export function addressPage(v: Visitor, current: { email: string; confirmed: boolean; changing_to: string | null }, state?: FormState, done?: string): Html {
  return layout(
    v,
    'Your address',
    html`<section class="narrow">
    <h1>Your address</h1>
    ${notice(done)}
    <p>You sign in with <strong>${current.email}</strong>${current.confirmed ? html` (confirmed)` : html` (not confirmed yet: follow the link we mailed to it)`}.</p>
    ${current.changing_to === null ? '' : html`<p>A link to confirm <strong>${current.changing_to}</strong> is on its way there; the address changes once it is followed.</p>`}
    ${errorSummary(state)}
    <form method="post" action="/settings/address" novalidate>
      ${csrfField(v)}
      ${field({ name: 'email', label: 'New address', type: 'email', state, required: true, autocomplete: 'email' })}
      ${field({ name: 'password', label: 'Your password', type: 'password', state, required: true, autocomplete: 'current-password' })}
      <button type="submit">Send a link to the new address</button>
    </form>
    ${
      current.confirmed
        ? ''
        : html`<form method="post" action="/account/confirm">
      ${csrfField(v)}
      <button type="submit" class="secondary">Send the confirmation link again</button>
    </form>`
    }
  </section>`,
  );
}
