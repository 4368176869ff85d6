// `almoner users create`: a user with a fund and an API key (and, if asked, their sign-in); the
// other `users` commands are operate.ts's.
import { parseArgs } from 'node:util';
import { createUserWithKey } from '../modules/users/index.ts';
import { addAccount, inviteUser } from '../modules/accounts/index.ts';
import { slugify } from '../modules/nonprofits/index.ts';
import { UsageError, actor, withPlatform } from './common.ts';
import { operate } from './operate.ts';

export async function usersCommand(sub: string | undefined, rest: string[]): Promise<number> {
  if (sub !== 'create') return operate('users', sub, rest);
  await usersCreate(rest);
  return 0;
}

async function usersCreate(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      name: { type: 'string' },
      slug: { type: 'string' },
      city: { type: 'string' },
      private: { type: 'boolean', default: false },
      'key-name': { type: 'string', default: 'cli' },
      test: { type: 'boolean', default: false },
      email: { type: 'string' },
      password: { type: 'string' },
      invite: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.invite && values.email !== undefined) throw new UsageError('--invite lets the person choose their email and password: give it without --email and --password');
  if ((values.email === undefined) !== (values.password === undefined)) throw new UsageError('--email and --password go together (the user signs in to the web app with them)');
  const name = values.name?.trim() ?? '';
  if (name === '' || name.length > 200) throw new UsageError('--name is required (1 to 200 characters)');
  if (values.slug !== undefined && !/^[a-z0-9-]{1,60}$/i.test(values.slug)) throw new UsageError('--slug takes letters, digits and dashes (at most 60)');
  await withPlatform(async ({ deps }) => {
    const { email, password } = values;
    let invited: { url: string; expires_at: string } | undefined;
    const created = await createUserWithKey(
      deps,
      { name, slug: values.slug, city: values.city, visible: !values.private },
      { name: values['key-name'], mode: values.test ? 'test' : 'live' },
      actor(),
      async (trx, userId) => {
        if (email !== undefined && password !== undefined) await addAccount(deps, userId, email, password, trx);
        if (values.invite) invited = await inviteUser(deps, userId, trx);
      },
    );
    const wanted = slugify(values.slug ?? name);
    process.stdout.write(`Created user ${created.user_id} (${created.slug}) with fund ${created.fund_id}.\n`);
    if (created.slug !== wanted) process.stdout.write(`Note: this user's profile is /${created.slug} (not /${wanted}: taken, reserved or too long).\n`);
    if (values.email !== undefined) process.stdout.write(`They sign in to the web app as ${values.email}.\n`);
    if (invited !== undefined) process.stdout.write(`Sign-in invitation (send it to them; it works once, until ${invited.expires_at}): ${invited.url}\n`);
    process.stdout.write(`API key (shown once): ${created.key.key}\n`);
  });
}
