// /v1/ledger (rules §26): the log's key, its signed checkpoints, consistency proofs between them,
// and a donation's proof of inclusion, for anyone holding a key to check the books without us.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.ts';
import { listPage } from '../../http/page.ts';
import { Paged, PageQuery, withProblems } from '../../http/schemas.ts';
import { toPage } from '../../shared/page.ts';
import { verifierKeyText } from '../../shared/signed-note.ts';
import { authorize } from '../../shared/policy.ts';
import * as log from './ledger.log.ts';

const Base64Hash = Type.String({ description: 'A SHA-256 hash, base64' });

export const LedgerCheckpoint = Type.Object(
  {
    size: Type.Integer({ description: "The log's size: how many entries the tree holds" }),
    root_hash: Base64Hash,
    note: Type.String({ description: 'The checkpoint as a signed note (C2SP tlog-checkpoint), with the witnesses\u2019 cosignature lines' }),
    key: Type.String({ description: 'The verifier key of the log key that signed it' }),
    witnesses: Type.Array(Type.String(), { description: 'The witnesses whose cosignatures the note carries' }),
    created_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'LedgerCheckpoint' },
);

const LedgerKey = Type.Object({
  name: Type.String(),
  verifier_key: Type.String({ description: 'name+id+base64 key (C2SP signed-note): what `almoner verify` and the client\u2019s verifier are given' }),
  origin: Type.String({ description: "The origin line of the caller's book's checkpoints" }),
  witnesses: Type.Array(Type.String(), { description: 'The verifier keys of the witnesses whose cosignatures are accepted' }),
});

const Consistency = Type.Object({ first: Type.Integer(), second: Type.Integer(), proof: Type.Array(Base64Hash) });

export const DonationProof = Type.Object({
  donation_id: Type.Integer(),
  checkpoint: Type.Ref('LedgerCheckpoint'),
  entries: Type.Array(
    Type.Object({
      id: Type.Integer(),
      leaf_index: Type.Integer(),
      encoded: Type.String({ description: "The entry's canonical encoding (docs/rules.md §26); its leaf hash is SHA-256(0x00 || its UTF-8)" }),
      leaf_hash: Base64Hash,
      inclusion_proof: Type.Array(Base64Hash, { description: 'RFC 6962 audit path, from the leaf up, to the checkpoint\u2019s root' }),
    }),
  ),
});

export function ledgerRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['Ledger'];
    const one = Type.Ref('LedgerCheckpoint');

    app.get(
      '/ledger/key',
      { schema: { tags, summary: "The log key's verifier key, and the origin of the caller's book's log", response: withProblems({ 200: LedgerKey }) } },
      async (request) => {
        authorize(request.caller, 'read');
        const key = await log.logKey(deps);
        return {
          name: key.name,
          verifier_key: verifierKeyText(key.name, key.publicKey),
          origin: log.originFor(key.name, request.caller.book),
          witnesses: [...deps.config.ledger.witnesses],
        };
      },
    );

    app.get(
      '/ledger/checkpoints',
      { schema: { tags, summary: "The signed checkpoints of the caller's book's log, newest first", querystring: PageQuery, response: withProblems({ 200: Paged(one) }) } },
      async (request, reply) =>
        listPage(request, reply, async (page) => {
          authorize(request.caller, 'read');
          const { rows, count } = await log.checkpointPage(deps, request.caller.book, page.per_page, (page.page - 1) * page.per_page);
          return toPage(rows, count, page);
        }),
    );

    app.get('/ledger/checkpoints/latest', { schema: { tags, summary: 'The newest signed checkpoint', response: withProblems({ 200: one }) } }, async (request) => {
      authorize(request.caller, 'read');
      return log.latestCheckpointView(deps, request.caller.book);
    });

    app.get(
      '/ledger/checkpoints/:size',
      {
        schema: {
          tags,
          summary: 'The signed checkpoint of a size',
          params: Type.Object({ size: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) }),
          response: withProblems({ 200: one }),
        },
      },
      async (request) => {
        authorize(request.caller, 'read');
        return log.checkpointView(deps, request.caller.book, request.params.size);
      },
    );

    app.get(
      '/ledger/consistency',
      {
        schema: {
          tags,
          summary: 'The consistency proof (RFC 6962) that the checkpoint of size `first` is a prefix of the one of size `second`',
          querystring: Type.Object(
            { first: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), second: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) },
            { additionalProperties: false },
          ),
          response: withProblems({ 200: Consistency }),
        },
      },
      async (request) => {
        authorize(request.caller, 'read');
        return log.consistencyBetween(deps, request.caller.book, request.query.first, request.query.second);
      },
    );
  };
}
