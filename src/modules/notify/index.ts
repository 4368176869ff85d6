export { notifyStatus, runNotify } from './notify.service.ts';
export { deliveryOf, relayEvents } from './notify.relay.ts';
export { notifyRoutes } from './notify.routes.ts';
