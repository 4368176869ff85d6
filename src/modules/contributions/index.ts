export * from './contributions.ts';
export * from './contributions.service.ts';
export {
  cancelContribution,
  declarationsAwaitingMoney,
  declareContribution,
  declaredForm,
  receiveDeclared,
  recordArrivalAudited,
  type Declaration,
} from './contributions.declarations.ts';
export { letterPdf, lettersPdf } from './letters.ts';
export { correctReceipt, receiptDownload, receiptOf, repairReceipts, type Receipt } from './contributions.receipts.ts';
export { correctReceivedValue, type Corrected, type ValueCorrection } from './contributions.corrections.ts';
export { statementDownload, statementPeriod, taxStatement } from './statements.ts';
export { RAILS, UNIT_TYPES } from './rails.ts';
