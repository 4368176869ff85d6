export { notifyStatus, runNotify } from './notify.service.ts';
export { relayEvents } from './notify.relay.ts';
