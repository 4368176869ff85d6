export { listMail, mailBacklog, queueMail, sendDueMail, type Outgoing } from './mail.service.ts';
export * as messages from './messages.ts';
