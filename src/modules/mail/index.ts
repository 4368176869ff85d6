export { createMailTransport, listMail, mailBacklog, queueMail, rememberedPublicUrl, rememberPublicUrl, removeMailFiles, sendDueMail, type Outgoing } from './mail.service.ts';
export * as messages from './messages.ts';
