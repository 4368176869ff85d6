export * from './payments.ts';
export { isRoutingNumber, originatorProblems, readAchReturns } from './nacha.ts';
export { getRun, listRuns, moneyOutHealth, openRun, settle, voidStaleChecks, type Opened, type PaymentView, type RunView } from './payments.service.ts';
export { achFileOf, checkRows, CHECK_REGISTER_HEADER, POSITIVE_PAY_HEADER } from './payments.files.ts';
export { approveRun, submitRun, withdrawRun, type LeftOut } from './payments.submit.ts';
export { approvePayeeAccount, setPayeeAccount, type PayeeAccountSet } from './payments.payees.ts';
export { donorAsShared, remittance, runRemittances } from './payments.remittances.ts';
export { charityAccount, charityRemittance, setOwnBankDetails, type CharityAccount } from './payments.charity.ts';
export { listExceptions, PAID_CHECKS_COLUMNS, recordAchReturns, recordPaidChecks, resolveException } from './payments.outcomes.ts';
