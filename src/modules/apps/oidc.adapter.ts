// The OpenID Connect provider's storage (ADR 16), over the platform's
// database so that every node shares codes, tokens, grants and sessions.
// Clients are the apps users registered: read on every use, so a disabled
// app stops at once. A client's secret is given to the provider as its hash
// (oidc.ts compares the hash of what a client sends).
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Deps } from '../../deps.ts';
import * as store from './apps.store.ts';

/** The client metadata of an app, or undefined for an unknown or disabled app (or a sandbox app on a platform without a sandbox). */
export async function clientOfApp(deps: Deps, clientId: string): Promise<AdapterPayload | undefined> {
  const app = await store.findApp(deps.db, clientId);
  if (app === undefined || app.disabled_at !== null) return undefined;
  if (app.book === 'test' && !deps.config.sandbox) return undefined;
  return {
    client_id: app.client_id,
    client_secret: app.secret_hash,
    client_name: app.name,
    redirect_uris: JSON.parse(app.redirect_uris) as string[],
    ...(app.logo_uri === null ? {} : { logo_uri: app.logo_uri }),
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
    id_token_signed_response_alg: 'RS256',
  };
}

export function databaseAdapter(deps: Deps) {
  return class DatabaseAdapter implements Adapter {
    readonly kind: string;

    constructor(kind: string) {
      this.kind = kind;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      await store.upsertArtifact(deps.db, {
        kind: this.kind,
        id,
        payload: JSON.stringify(payload),
        grant_id: typeof payload.grantId === 'string' ? payload.grantId : null,
        uid: typeof payload.uid === 'string' ? payload.uid : null,
        expires_at: typeof expiresIn === 'number' ? Date.now() + expiresIn * 1000 : null,
      });
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (this.kind === 'Client') return clientOfApp(deps, id);
      return payloadOf(await store.findArtifact(deps.db, this.kind, id, Date.now()));
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return payloadOf(await store.findArtifactByUid(deps.db, this.kind, uid, Date.now()));
    }

    async findByUserCode(): Promise<AdapterPayload | undefined> {
      // No device flow: nothing has a user code.
      return undefined;
    }

    async consume(id: string): Promise<void> {
      await store.consumeArtifact(deps.db, this.kind, id, Math.floor(Date.now() / 1000));
    }

    async destroy(id: string): Promise<void> {
      await store.destroyArtifact(deps.db, this.kind, id);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await store.revokeArtifactsOfGrant(deps.db, grantId);
    }
  };
}

function payloadOf(row: store.Artifact | undefined): AdapterPayload | undefined {
  if (row === undefined) return undefined;
  const payload = JSON.parse(row.payload) as AdapterPayload;
  return row.consumed_at === null ? payload : { ...payload, consumed: row.consumed_at };
}
