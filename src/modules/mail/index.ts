export { createMailTransport, listMail, mailBacklog, queueMail, removeMailFiles, sendDueMail, type Outgoing } from './mail.service.ts';
export * as messages from './messages.ts';
