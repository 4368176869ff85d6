// Shared funds on the API (rules §20): the members of the fund the caller acts
// on, the funds they may act on and their choice.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.ts';
import { EmptyObject, IdParams, withProblems } from '../../http/schemas.ts';
import { getProfile } from '../users/index.ts';
import { changeMemberRole, chooseFund, fundsOf, inviteMember, listMembers, removeMember } from './members.service.ts';
import { FundChoice, InviteBody, MeBody, Member, MemberList, RoleBody } from './members.schema.ts';

export function memberRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['Shared funds'];
    app.addSchema(Member);

    app.get(
      '/fund/members',
      { schema: { tags, summary: 'The members and waiting invitations of the fund the caller acts on', response: withProblems({ 200: MemberList }) } },
      async (request) => ({ items: await listMembers(deps, request.caller) }),
    );

    app.post(
      '/fund/members',
      {
        schema: {
          tags,
          summary: 'Invite an address into the fund with a role (organizers): a link is mailed there',
          body: InviteBody,
          response: withProblems({ 201: Type.Ref('FundMember') }),
        },
      },
      async (request, reply) => {
        const { member, token } = await inviteMember(deps, request.caller, request.body);
        // The sandbox mails no one: its invitations answer with the link instead.
        const body = request.caller.book === 'test' ? { ...member, invitation_url: `${deps.config.publicUrl}/join/${token}` } : member;
        return reply.code(201).header('location', `/v1/fund/members/${member.id}`).send(body);
      },
    );

    app.patch(
      '/fund/members/:id',
      {
        schema: {
          tags,
          summary: "Change a member's role (organizers); a fund keeps at least one organizer",
          params: IdParams,
          body: RoleBody,
          response: withProblems({ 200: Type.Ref('FundMember') }),
        },
      },
      async (request) => changeMemberRole(deps, request.caller, request.params.id, request.body.role),
    );

    app.delete(
      '/fund/members/:id',
      { schema: { tags, summary: 'Remove a member or withdraw an invitation (organizers), or leave (your own)', params: IdParams, response: withProblems({ 200: EmptyObject }) } },
      async (request) => {
        await removeMember(deps, request.caller, request.params.id);
        return {};
      },
    );

    app.get(
      '/users/me/funds',
      {
        schema: {
          tags,
          summary: 'The funds the caller may act on; `current` marks the one they do',
          response: withProblems({ 200: Type.Object({ items: Type.Array(FundChoice) }) }),
        },
      },
      async (request) => ({ items: await fundsOf(deps, request.caller) }),
    );

    app.patch(
      '/users/me',
      { schema: { tags, summary: 'Choose the fund the users/me routes act on (one you are a member of)', body: MeBody, response: withProblems({ 200: Type.Ref('Profile') }) } },
      async (request) => {
        await chooseFund(deps, request.caller, request.body.current_fund_id);
        const holder = (await fundsOf(deps, request.caller)).find((f) => f.id === request.body.current_fund_id)?.holder.id ?? request.caller.user_id;
        return getProfile(deps, { ...request.caller, user_id: holder, fund_id: request.body.current_fund_id }, 'me');
      },
    );
  };
}
