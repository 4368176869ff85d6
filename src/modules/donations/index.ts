export * from './donations.ts';
export * from './donations.service.ts';
export * from './donations.lists.ts';
export * from './donations.exports.ts';
export { decideRequest, expireRequests, waitingRequests, withdrawRequestsOf } from './donations.requests.ts';
