export * from './accounts.ts';
export * from './accounts.service.ts';
export { hashPassword, verifyPassword, DEFAULT_SCRYPT_COST } from './passwords.ts';
export { requestPasswordReset, resetLinkWorks, resetPassword, RESET_ANSWER_MS } from './accounts.resets.ts';
export {
  addressStatus,
  askToConfirm,
  changeAddress,
  confirmAddress,
  isAddressConfirmed,
  requireConfirmedAddress,
  sendAddressConfirmation,
  unconfirmedAddress,
  CONFIRMATION_RESEND_MS,
  CONFIRMATION_TTL_MS,
} from './accounts.addresses.ts';
