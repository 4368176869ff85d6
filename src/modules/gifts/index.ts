export * from './gifts.ts';
export * from './gifts.service.ts';
