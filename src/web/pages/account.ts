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
