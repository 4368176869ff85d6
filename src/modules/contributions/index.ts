export * from './contributions.ts';
export * from './contributions.service.ts';
