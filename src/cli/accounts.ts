import {
  AccountError,
  createAccount,
  findAccountByEmail,
  isEmailAddress,
  resetPassword,
} from '../accounts/accounts.ts';
import { createInvitation } from '../accounts/invitations.ts';
import { createApiKey } from '../accounts/api-keys.ts';
import { parseConnectionLimit, setConnectionLimit } from '../accounts/connection-limit.ts';
import { addContract, connectionLimit, removeContract } from '../accounts/contracts.ts';
import { busCodecs } from '../bus/codecs.ts';
import { parseScopeList } from '../scopes.ts';
import type { Queryable } from '../db/types.ts';
import { databaseFlags, parseFlags, printJson, required, UsageError } from './args.ts';
import { usageError } from './usage.ts';
import { DataDirServedError, type CommandIo } from './database.ts';

async function accountByEmail(q: Queryable, email: string) {
  const account = await findAccountByEmail(q, email);
  if (!account) throw new AccountError(`no account with email ${email}`);
  return account;
}

/** namazu account create --email E --password P [--name N] [--admin] */
export async function accountCommand(argv: string[], io: CommandIo): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub === 'password') return passwordCommand(rest, io);
  if (sub === 'limit') return limitCommand(rest, io);
  if (sub !== 'create') throw usageError('account');
  const { values } = parseFlags(rest, {
    ...databaseFlags,
    email: { type: 'string' },
    password: { type: 'string' },
    name: { type: 'string' },
    admin: { type: 'boolean' },
  });
  const email = required(values, 'email');
  const password = required(values, 'password');
  const account = await io.withDatabase(values, ({ db }) =>
    createAccount(db, { email, password, name: values.name ?? null, isAdmin: values.admin ?? false }),
  );
  printJson(io, { id: account.id, email: account.email });
}

/**
 * namazu account password --email E [--password P] → {"id","email","passwordReset":true}: a new
 * password (from --password, else read from the operator) and the account's console sessions ended.
 */
async function passwordCommand(argv: string[], io: CommandIo): Promise<void> {
  const { values } = parseFlags(argv, {
    ...databaseFlags,
    email: { type: 'string' },
    password: { type: 'string' },
  });
  const email = required(values, 'email');
  if (values.password === undefined && !io.readSecret) required(values, 'password');
  const password = values.password ?? (await io.readSecret!('New password: '));
  try {
    const account = await io.withDatabase(values, ({ db }) => resetPassword(db, email, password));
    if (!account) throw new AccountError(`no account with email ${email}`);
    printJson(io, { id: account.id, email: account.email, passwordReset: true });
  } catch (err) {
    // A server holds the data directory: the password read here goes with the command.
    if (err instanceof DataDirServedError && values.password === undefined)
      throw new DataDirServedError(err.dataDir, err.pid, ['password', ...argv, '--password', password]);
    throw err;
  }
}

/**
 * namazu account limit --account E --connections N|default → {"id","email","connectionLimit","connections"}:
 * the operator's limit of simultaneous connections (null: the plans decide) and the limit in force.
 */
async function limitCommand(argv: string[], io: CommandIo): Promise<void> {
  const { values } = parseFlags(argv, {
    ...databaseFlags,
    account: { type: 'string' },
    connections: { type: 'string' },
  });
  const email = required(values, 'account');
  const limit = parseConnectionLimit(required(values, 'connections'));
  if (!limit.ok) throw new UsageError(`--connections: ${limit.message}`);
  const result = await io.withDatabase(values, async ({ db, bus }) => {
    const account = await accountByEmail(db, email);
    await setConnectionLimit(db, account.id, limit.limit);
    // Running servers close the connections beyond a lowered limit when told (else at their next ping).
    await busCodecs.contracts.publish(await bus(), { accountId: account.id });
    return { id: account.id, email: account.email, connections: await connectionLimit(db, account.id) };
  });
  printJson(io, {
    id: result.id,
    email: result.email,
    connectionLimit: limit.limit,
    connections: result.connections,
  });
}

/** namazu apikey create --account E --scopes "s1 s2" */
export async function apikeyCommand(argv: string[], io: CommandIo): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub !== 'create') throw usageError('apikey');
  const { values } = parseFlags(rest, {
    ...databaseFlags,
    account: { type: 'string' },
    scopes: { type: 'string' },
  });
  const email = required(values, 'account');
  const scopes = parseScopeList(required(values, 'scopes'));
  const { key } = await io.withDatabase(values, async ({ db, pepper }) =>
    createApiKey(db, pepper, (await accountByEmail(db, email)).id, scopes),
  );
  printJson(io, { key, scopes });
}

/** namazu contract add|remove --account E --plan P */
export async function contractCommand(argv: string[], io: CommandIo): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub !== 'add' && sub !== 'remove') throw usageError('contract');
  const { values } = parseFlags(rest, {
    ...databaseFlags,
    account: { type: 'string' },
    plan: { type: 'string' },
  });
  const email = required(values, 'account');
  const plan = required(values, 'plan');
  const result = await io.withDatabase(values, async ({ db, bus }) => {
    const account = await accountByEmail(db, email);
    const out =
      sub === 'add'
        ? await addContract(db, account.id, plan).then((c) => ({
            id: c.id,
            account: account.email,
            plan: c.plan.classification,
            planId: c.plan.id,
            start: c.start.toISOString(),
            isValid: true,
          }))
        : await removeContract(db, account.id, plan).then((ended) => ({
            account: account.email,
            plan,
            removed: ended,
          }));
    // Running servers apply contract changes to live connections when told over the bus.
    await busCodecs.contracts.publish(await bus(), { accountId: account.id });
    return out;
  });
  printJson(io, result);
}

/** namazu invite create [--email E] [--days N] [--by ADMIN_EMAIL] → the token, once, and the sign-up path */
export async function inviteCommand(argv: string[], io: CommandIo): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub !== 'create') throw usageError('invite');
  const { values } = parseFlags(rest, {
    ...databaseFlags,
    email: { type: 'string' },
    days: { type: 'string' },
    by: { type: 'string' },
  });
  const days = values.days === undefined ? 7 : Number(values.days);
  if (!/^\d{1,2}$/.test(values.days ?? '7') || days < 1 || days > 90)
    throw new UsageError('--days must be a whole number from 1 to 90');
  const email = values.email;
  if (email !== undefined && !isEmailAddress(email))
    throw new UsageError(`--email: not an e-mail address: ${email}`);
  const { token, expiresAt, url } = await io.withDatabase(values, async ({ db, pepper, config }) => {
    const by = values.by === undefined ? null : await accountByEmail(db, values.by);
    if (by && !by.isAdmin) throw new AccountError(`${by.email} is not an administrator`);
    const made = await createInvitation(db, pepper, {
      now: Date.now(),
      ttlMs: days * 86_400_000,
      email: email ?? null,
      createdBy: by?.id ?? null,
    });
    return { ...made, url: config.authUrl ? config.authUrl + signupPath(made.token) : null };
  });
  printJson(io, {
    token,
    path: signupPath(token),
    url,
    email: email ?? null,
    expiresAt: expiresAt.toISOString(),
  });
}

/** Where an invitation is accepted (the console's sign-up page, docs/console.md). */
const signupPath = (token: string) => `/account/signup?invitation=${encodeURIComponent(token)}`;
