export * from './causes.ts';
export * from './nonprofits.ts';
export {
  charityByEin,
  directorySize,
  einsOfFile,
  findRecipient,
  findRecipients,
  findRecipientsAsOf,
  getNonProfit,
  recordsEpochIs,
  nonProfitForm,
  prepareDirectory,
  zipCentre,
} from './nonprofits.service.ts';
export { bumpRecordsEpoch, type NonProfit, type NonProfitInput } from './nonprofits.store.ts';
export { cardOfNonProfit, cardsEpoch, createCardCache, nonProfitCards, type CardCache, type NonProfitCard } from './cards.ts';
export { bmfFiles, importBmf, sourceOf, type ImportProgress, type ImportSummary } from './import.service.ts';
export { DirectorySearch } from './search.service.ts';
export { DirectoryInMemory } from './directory.held.ts';
export type { CharityProfile } from './profile.ts';
export { postalLines } from './profile.ts';
