export * from './apps.ts';
export * from './apps.service.ts';
export { buildProvider, newSigningKey, DISCOVERY_PATH, ID_TOKEN_GRANT, ID_TOKEN_SCOPE, OIDC_PREFIX, TTL_SECONDS, type OidcProvider, type ProviderHooks } from './oidc.ts';
export { callerOfAccessToken, callerOfIdToken, noteConnectionUse } from './apps.tokens.ts';
