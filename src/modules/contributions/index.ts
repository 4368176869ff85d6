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
export { correctReceipt, receiptOf, receiptPdf, type Receipt } from './contributions.receipts.ts';
export { donorOf, statementPdf, statementPeriod, taxStatement } from './statements.ts';
export { RAILS } from './rails.ts';
