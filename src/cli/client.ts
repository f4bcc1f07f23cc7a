import { AccountError, findAccountByEmail } from '../accounts/accounts.ts';
import {
  checkRegistration,
  RegistrationError,
  type RegistrationField,
  type RegistrationInput,
} from '../issuer/client-registration.ts';
import { createClient } from '../issuer/clients.ts';
import { databaseFlags, parseFlags, printJson, required, UsageError } from './args.ts';
import { usageError } from './usage.ts';
import type { CommandIo } from './database.ts';

/** The flag each registration field comes from. */
const FLAG_OF: Record<RegistrationField, string> = {
  name: 'name',
  type: 'type',
  redirectUris: 'redirect-uri',
  grants: 'grant',
  scopes: 'scopes',
  refreshRotation: 'refresh-rotation',
  contact: 'contact',
  appUrl: 'app-url',
  termsUrl: 'terms-url',
  privacyUrl: 'privacy-url',
};

export const clientFlags = {
  ...databaseFlags,
  account: { type: 'string' },
  name: { type: 'string' },
  type: { type: 'string' },
  'redirect-uri': { type: 'string', multiple: true },
  grant: { type: 'string', multiple: true },
  scopes: { type: 'string' },
  'refresh-rotation': { type: 'string' },
  contact: { type: 'string' },
  'app-url': { type: 'string' },
  'terms-url': { type: 'string' },
  'privacy-url': { type: 'string' },
} as const;

/** The client registration the flags describe, or a UsageError saying which flag is wrong. */
export function clientFromFlags(values: Record<string, string | string[] | boolean | undefined>) {
  const input: RegistrationInput = {
    name: required(values, 'name'),
    type: required(values, 'type'),
    redirectUris: (values['redirect-uri'] as string[] | undefined) ?? [],
    grants: (values.grant as string[] | undefined) ?? [],
    scopes: required(values, 'scopes'),
    refreshRotation: values['refresh-rotation'] as string | undefined,
    contact: values.contact as string | undefined,
    appUrl: values['app-url'] as string | undefined,
    termsUrl: values['terms-url'] as string | undefined,
    privacyUrl: values['privacy-url'] as string | undefined,
  };
  try {
    return checkRegistration(input, (field) => `--${FLAG_OF[field]}`);
  } catch (e) {
    if (e instanceof RegistrationError) throw new UsageError(e.message);
    throw e;
  }
}

/** namazu client create … → {"client_id":"CId.…","client_secret":"CSt.…"} (no secret for public clients) */
export async function clientCommand(argv: string[], io: CommandIo): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub !== 'create') throw usageError('client');
  const { values } = parseFlags(rest, clientFlags);
  const email = required(values, 'account');
  const input = clientFromFlags(values);
  const { client, clientSecret } = await io.withDatabase(values, async ({ db, pepper }) => {
    const account = await findAccountByEmail(db, email);
    if (!account) throw new AccountError(`no account with email ${email}`);
    return createClient(db, pepper, { accountId: account.id, ...input });
  });
  printJson(
    io,
    clientSecret === null
      ? { client_id: client.clientId }
      : { client_id: client.clientId, client_secret: clientSecret },
  );
}
