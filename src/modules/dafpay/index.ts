export { dafpayRoutes, dafpayReplayers } from './dafpay.routes.ts';
export { CheckoutDonor, Grant, GrantableFund } from './dafpay.schema.ts';
