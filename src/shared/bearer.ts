// `Authorization: Bearer <token>`, read one way for API keys, app tokens and operator tokens.

/** The token of a Bearer authorization header (the scheme in any case), trimmed; undefined if it is none. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const token = /^Bearer\s+(.+)$/i.exec(authorization?.trim() ?? '')?.[1]?.trim();
  return token === '' ? undefined : token;
}
