export * from './causes.ts';
export * from './nonprofits.ts';
export { findRecipient, getNonProfit, nonProfitForm } from './nonprofits.service.ts';
export { seedCauses, upsert as upsertNonProfit, findByEin, type NonProfit, type NonProfitInput } from './nonprofits.store.ts';
export { nonProfitCards, type NonProfitCard } from './cards.ts';
