export * from './keys.ts';
export { createKey, listKeys, revokeKey, type CreatedKey } from './keys.service.ts';
export { authEpoch, bumpAuthEpoch, findCallerByHash, touchKey, type ApiKeyView } from './keys.store.ts';
