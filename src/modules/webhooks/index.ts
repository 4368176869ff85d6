export * from './webhooks.ts';
export {
  createEndpoint,
  deleteEndpoint,
  endEndpointsOfMember,
  getEndpoint,
  listAttempts,
  listEndpoints,
  rotateSecret,
  sendTestEvent,
  updateEndpoint,
  type EndpointInput,
} from './webhooks.service.ts';
export { deliverDue, deliveriesSettled, Sending, webhookBacklog } from './webhooks.delivery.ts';
export { fanOut, replayEndpoint, type Rendered } from './webhooks.fanout.ts';
