export * from './keys.ts';
export { callerOfKey, createKey, listKeys, noteKeyUse, revokeKey, type CreatedKey } from './keys.service.ts';
export { bumpAuthEpoch, type ApiKeyView } from './keys.store.ts';
export { CallerCache } from './caller-cache.ts';
