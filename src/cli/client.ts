import { AccountError, findAccountByEmail } from '../accounts/accounts.ts';
import { createClient, type ClientType, type GrantType } from '../auth/clients.ts';
import { isKnownScope, parseScopeList } from '../auth/scopes.ts';
import { redirectUriProblem } from '../oauth/redirect-uri.ts';
import { databaseFlags, parseFlags, printJson, required, UsageError } from './args.ts';
import { withDatabase } from './database.ts';

const USAGE =
  'usage: namazu client create --account E --name N --type confidential|public --redirect-uri U … ' +
  '--grant authorization_code|refresh_token|client_credentials … --scopes "s1 s2" ' +
  '[--contact C --app-url U --terms-url U --privacy-url U]';

const GRANTS: readonly GrantType[] = ['authorization_code', 'refresh_token', 'client_credentials'];
const MAX_NAME = 100;
const MAX_CONTACT = 254;
const MAX_URIS = 20;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

function httpUrl(flag: string, value: string | undefined): string | null {
  if (value === undefined) return null;
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || value.length > 2000) {
    throw new UsageError(`--${flag} must be an http(s) URL, got "${value}"`);
  }
  return value;
}

export const clientFlags = {
  ...databaseFlags,
  account: { type: 'string' },
  name: { type: 'string' },
  type: { type: 'string' },
  'redirect-uri': { type: 'string', multiple: true },
  grant: { type: 'string', multiple: true },
  scopes: { type: 'string' },
  contact: { type: 'string' },
  'app-url': { type: 'string' },
  'terms-url': { type: 'string' },
  'privacy-url': { type: 'string' },
} as const;

/** The client registration the flags describe, or a UsageError saying which flag is wrong. */
export function clientFromFlags(values: Record<string, string | string[] | boolean | undefined>) {
  const name = required(values, 'name').trim();
  if (name.length === 0 || name.length > MAX_NAME || CONTROL.test(name)) {
    throw new UsageError(`--name must be 1 to ${MAX_NAME} printable characters`);
  }
  const type = required(values, 'type');
  if (type !== 'confidential' && type !== 'public')
    throw new UsageError('--type must be confidential or public');

  const grants = [...new Set((values.grant as string[] | undefined) ?? [])];
  if (grants.length === 0) throw new UsageError('at least one --grant is required');
  for (const g of grants) {
    if (!GRANTS.includes(g as GrantType))
      throw new UsageError(`--grant must be one of ${GRANTS.join(', ')}, got "${g}"`);
  }
  if (type === 'public' && grants.includes('client_credentials')) {
    throw new UsageError('public clients cannot use the client_credentials grant');
  }
  if (grants.includes('refresh_token') && !grants.includes('authorization_code')) {
    throw new UsageError(
      '--grant refresh_token needs --grant authorization_code (refresh tokens come from it)',
    );
  }

  const redirectUris = [...new Set((values['redirect-uri'] as string[] | undefined) ?? [])];
  if (redirectUris.length > MAX_URIS) throw new UsageError(`at most ${MAX_URIS} --redirect-uri`);
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new UsageError(`--redirect-uri "${uri}" ${problem}`);
  }
  if (grants.includes('authorization_code') && redirectUris.length === 0) {
    throw new UsageError('the authorization_code grant needs at least one --redirect-uri');
  }

  const scopes = parseScopeList(required(values, 'scopes'));
  if (scopes.length === 0) throw new UsageError('--scopes must name at least one scope');
  const unknown = scopes.filter((s) => !isKnownScope(s));
  if (unknown.length > 0) throw new UsageError(`unknown scope(s): ${unknown.join(', ')}`);

  const contact = values.contact as string | undefined;
  if (
    contact !== undefined &&
    (contact.trim().length === 0 || contact.length > MAX_CONTACT || CONTROL.test(contact))
  ) {
    throw new UsageError(`--contact must be 1 to ${MAX_CONTACT} printable characters`);
  }
  return {
    name,
    type: type as ClientType,
    redirectUris,
    grants: grants as GrantType[],
    scopes,
    contact: contact?.trim() ?? null,
    appUrl: httpUrl('app-url', values['app-url'] as string | undefined),
    termsUrl: httpUrl('terms-url', values['terms-url'] as string | undefined),
    privacyUrl: httpUrl('privacy-url', values['privacy-url'] as string | undefined),
  };
}

/** namazu client create … → {"client_id":"CId.…","client_secret":"CSt.…"} (no secret for public clients) */
export async function clientCommand(argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub !== 'create') throw new UsageError(USAGE);
  const { values } = parseFlags(rest, clientFlags);
  const email = required(values, 'account');
  const input = clientFromFlags(values);
  const { client, clientSecret } = await withDatabase(values, async ({ db, pepper }) => {
    const account = await findAccountByEmail(db, email);
    if (!account) throw new AccountError(`no account with email ${email}`);
    return createClient(db, pepper, { accountId: account.id, ...input });
  });
  printJson(
    clientSecret === null
      ? { client_id: client.clientId }
      : { client_id: client.clientId, client_secret: clientSecret },
  );
}
