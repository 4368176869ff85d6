export * from './causes.ts';
export * from './nonprofits.ts';
export { findRecipient, findRecipients, getNonProfit, nonProfitForm } from './nonprofits.service.ts';
export { seedCauses, upsert as upsertNonProfit, findByEin, type NonProfit, type NonProfitInput } from './nonprofits.store.ts';
export { cardOfNonProfit, nonProfitCards, type NonProfitCard } from './cards.ts';
