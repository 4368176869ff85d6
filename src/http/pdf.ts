// PDF answers: a request that asks for one, and the attachment sent.
import type { FastifyReply, FastifyRequest } from 'fastify';

/** True when the request asks for a PDF (Accept: application/pdf). */
export function wantsPdf(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('application/pdf');
}

/** A printable document, as a download named `filename`. */
export function sendPdf(reply: FastifyReply, document: { filename: string; bytes: Uint8Array }): FastifyReply {
  return reply.type('application/pdf').header('content-disposition', `attachment; filename="${document.filename}"`).send(Buffer.from(document.bytes));
}
