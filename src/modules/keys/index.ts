export * from './keys.ts';
export { callerOfKey, createKey, createKeyCache, listKeys, noteKeyUse, revokeKey, type CreatedKey, type KeyCache } from './keys.service.ts';
export { bumpAuthEpoch, type ApiKeyView } from './keys.store.ts';
