export * from './accounts.ts';
export * from './accounts.service.ts';
export { hashPassword, verifyPassword, DEFAULT_SCRYPT_COST } from './passwords.ts';
