// Sign up and sign in.
import { html, type Html } from '../html.ts';
import { csrfField, errorSummary, field, layout, notice, type FormState } from '../layout.ts';
import type { Visitor } from '../visitor.ts';
import { PASSWORD_MIN } from '../../modules/accounts/index.ts';

export function signUpPage(v: Visitor, state?: FormState): Html {
  return layout(
    v,
    'Sign up',
    html`<section class="narrow">
    <h1>Open your fund</h1>
    <p>Give to any US non-profit from one fund. It takes a minute.</p>
    ${errorSummary(state)}
    <form method="post" action="/signup" novalidate>
      ${csrfField(v)}
      ${field({ name: 'name', label: 'Your name', state, required: true, autocomplete: 'name', maxlength: 200 })}
      ${field({ name: 'email', label: 'Email', type: 'email', state, required: true, autocomplete: 'email' })}
      ${field({ name: 'password', label: 'Password', type: 'password', state, required: true, autocomplete: 'new-password', hint: `At least ${PASSWORD_MIN} characters. A few unrelated words make a strong one.` })}
      <button type="submit">Create my account</button>
    </form>
    <p>Already have an account? <a href="/signin">Sign in</a>.</p>
  </section>`,
  );
}

export function signInPage(v: Visitor, next: string, state?: FormState, done?: string): Html {
  return layout(
    v,
    'Sign in',
    html`<section class="narrow">
    <h1>Sign in</h1>
    ${notice(done)}
    ${errorSummary(state)}
    <form method="post" action="/signin" novalidate>
      ${csrfField(v)}
      <input type="hidden" name="next" value="${next}">
      ${field({ name: 'email', label: 'Email', type: 'email', state, required: true, autocomplete: 'email' })}
      ${field({ name: 'password', label: 'Password', type: 'password', state, required: true, autocomplete: 'current-password' })}
      <button type="submit">Sign in</button>
    </form>
    <p>New here? <a href="/signup">Open a fund</a>.</p>
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
