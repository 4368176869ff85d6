export * from './donations.ts';
export * from './donations.service.ts';
