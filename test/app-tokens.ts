// An app's tokens for tests that are about what a token may do, not how it is
// obtained (the whole sign-in and consent flow is login-with-almoner.test.ts
// and the Chromium walk): the app is registered and the donor's consent
// recorded by the platform's own services, and the tokens are issued by the
// provider's own classes (oidc-provider's Grant, AccessToken and IdToken),
// saved through the platform's adapter and found by any node as a real one.
import type { Deps } from '../src/deps.ts';
import { buildProvider, ID_TOKEN_GRANT, ID_TOKEN_SCOPE, recordConsent, registerApp, type OidcProvider } from '../src/modules/apps/index.ts';
import type { Book } from '../src/shared/book.ts';

export interface AppTokens {
  clientId: string;
  /** `Authorization: Bearer <accessToken>`. */
  accessToken: string;
  /** The compatible form: `Authorization: <clientId> <idToken>`. */
  idToken: string;
  /** The provider the tokens came from; any node's finds them (they are in the database). */
  oidc: OidcProvider;
}

const providers = new WeakMap<Deps, OidcProvider>();

function providerOf(deps: Deps): OidcProvider {
  let oidc = providers.get(deps);
  if (oidc === undefined) {
    oidc = buildProvider(deps, { signedInUser: async () => undefined, errorPage: (_status, title) => title });
    providers.set(deps, oidc);
  }
  return oidc;
}

/**
 * Connects a new app (registered by `developer`, else by `userId`, in `book`) to the live user `userId` with `scopes`
 * and returns its tokens, as if the donor had signed in and consented.
 */
export async function connectApp(
  deps: Deps,
  userId: number,
  options: { scopes: readonly string[]; book?: Book; monthlyLimitCents?: number | null; developer?: number },
): Promise<AppTokens> {
  const oidc = providerOf(deps);
  const provider = await oidc.ready();
  // Registered by its developer: the donor themselves unless another is named.
  const developer = options.developer ?? userId;
  const { app } = await registerApp(deps, developer, { name: `App of ${developer}`, redirect_uris: ['https://app.example.org/callback'], sandbox: options.book === 'test' });
  const client = await provider.Client.find(app.client_id);
  if (client === undefined) throw new Error(`the provider does not find the app ${app.client_id}`);
  const accountId = String(userId);
  const grant = new provider.Grant({ accountId, clientId: app.client_id });
  const scope = ['openid', ...options.scopes].join(' ');
  grant.addOIDCScope(scope);
  const grantId = await grant.save();
  await recordConsent(deps, { clientId: app.client_id, userId, scopes: options.scopes, grantId, monthlyLimitCents: options.monthlyLimitCents ?? null });
  const accessToken = await new provider.AccessToken({ accountId, client, grantId, scope, gty: 'authorization_code' }).save();
  // An id token names its grant and scopes, as the provider's token endpoint writes them (oidc.ts).
  const idToken = new provider.IdToken({ sub: accountId, [ID_TOKEN_GRANT]: grantId, [ID_TOKEN_SCOPE]: scope }, { client });
  // The claims an id token carries follow its scope: `sub` and the grant's need openid.
  Object.assign(idToken, { scope });
  return { clientId: app.client_id, accessToken, idToken: String(await idToken.issue({ use: 'idtoken' })), oidc };
}
