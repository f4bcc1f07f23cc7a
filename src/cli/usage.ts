/**
 * Every command's usage in one table: `namazu --help`, `namazu <command> [<subcommand>] --help`
 * (and `-h`) and the one-line usage errors are all written from it (docs/operations.md, "Command
 * line").
 */
import { UsageError } from './args.ts';

export interface CommandUsage {
  command: string;
  /** The subcommand words this usage is for (`contract add|remove`), none for a plain command. */
  subcommands?: readonly string[];
  /** The arguments after the command and subcommand. */
  synopsis: string;
  about: string;
  /** Flag and value as typed, then what it means; --data-dir/--database-url are added where `database`. */
  options: readonly (readonly [string, string])[];
  /** Opens the database: takes --data-dir and --database-url. */
  database: boolean;
  example: string;
}

const DATABASE_OPTIONS = [
  ['--data-dir D', 'embedded database directory (NAMAZU_DATA_DIR, default ./data)'],
  ['--database-url U', 'postgres://… to use PostgreSQL instead (NAMAZU_DATABASE_URL)'],
] as const;
const HELP_OPTION = ['-h, --help', 'this help'] as const;
const CONTRACT_OPTIONS = [
  ['--account E', 'the account'],
  ['--plan P', 'a classification such as telegram.earthquake, or websocket.plus2'],
] as const;

export const USAGES: readonly CommandUsage[] = [
  {
    command: 'serve',
    synopsis:
      '[--port N] [--host H] [--data-dir D] [--database-url U] [--bus memory|postgres|redis] [--workers N]',
    about:
      'Runs the whole service: OAuth, data API, WebSocket, console. Every flag also has a NAMAZU_* setting.',
    options: [
      ['--port N', 'port for everything (NAMAZU_PORT, default 8080)'],
      ['--host H', 'address to listen on (NAMAZU_HOST, default 0.0.0.0)'],
      ...DATABASE_OPTIONS,
      ['--bus B', 'message bus between processes: memory, postgres, redis (NAMAZU_BUS)'],
      ['--workers N', 'worker processes on this machine (NAMAZU_WORKERS; PostgreSQL and a shared bus)'],
    ],
    database: false,
    example: 'npx namazu serve --port 8080 --data-dir ./data',
  },
  {
    command: 'migrate',
    synopsis: '',
    about: 'Applies pending database migrations (also done at every start) and lists those applied.',
    options: [],
    database: true,
    example: 'npx namazu migrate',
  },
  {
    command: 'account',
    subcommands: ['create'],
    synopsis: '--email E --password P [--name N] [--admin]',
    about: 'Creates an account; --admin makes it an administrator (admin pages, invitations).',
    options: [
      ['--email E', 'the e-mail address it signs in with'],
      ['--password P', 'its password, 8 characters or more'],
      ['--name N', 'its display name'],
      ['--admin', 'an administrator'],
    ],
    database: true,
    example: "npx namazu account create --email ops@example.com --password 'correct horse battery' --admin",
  },
  {
    command: 'account',
    subcommands: ['password'],
    synopsis: '--email E [--password P]',
    about:
      'Sets a new password for an account and ends its console sessions. Without --password the new one is read from standard input: prompted for (not shown) on a terminal, else its first line.',
    options: [
      ['--email E', 'the account'],
      ['--password P', 'the new password, 8 characters or more (else read from standard input)'],
    ],
    database: true,
    example: 'npx namazu account password --email ops@example.com',
  },
  {
    command: 'account',
    subcommands: ['limit'],
    synopsis: '--account E --connections N|default',
    about:
      "Sets how many WebSocket connections and streams an account may hold at once, in place of its plans' count (1 per contract, +2, +5); default goes back to the plans. Open connections are kept; new ones are counted against it.",
    options: [
      ['--account E', 'the account'],
      ['--connections N', 'a whole number from 0 to 1000000, or default (the plans decide)'],
    ],
    database: true,
    example: 'npx namazu account limit --account ops@example.com --connections 100000',
  },
  {
    command: 'apikey',
    subcommands: ['create'],
    synopsis: '--account E --scopes "s1 s2"',
    about: 'Creates an API key for an account; the key is shown once.',
    options: [
      ['--account E', 'the e-mail address of the account it acts for'],
      ['--scopes "…"', 'the scopes it grants, space-separated (telegram.list telegram.get.earthquake …)'],
    ],
    database: true,
    example:
      'npx namazu apikey create --account ops@example.com --scopes "telegram.list telegram.get.earthquake"',
  },
  {
    command: 'client',
    subcommands: ['create'],
    synopsis:
      '--account E --name N --type confidential|public --redirect-uri U … --grant G … --scopes "…" [--refresh-rotation default|on|off] [--contact C --app-url U --terms-url U --privacy-url U]',
    about: 'Registers an OAuth client; a confidential client gets a secret, shown once.',
    options: [
      ['--account E', 'the account that owns it'],
      ['--name N', 'its name, shown on the consent page'],
      ['--type T', 'confidential (has a secret) or public (PKCE only)'],
      ['--redirect-uri U', 'an allowed redirect URI (repeat for more)'],
      ['--grant G', 'authorization_code, refresh_token or client_credentials (repeat for more)'],
      ['--scopes "…"', 'the scopes it may ask for, space-separated'],
      ['--refresh-rotation R', 'default, on or off (docs/oauth.md "Refresh token rotation")'],
      ['--contact C', 'contact address shown on the consent page'],
      ['--app-url U', "the application's page"],
      ['--terms-url U', 'its terms of use'],
      ['--privacy-url U', 'its privacy policy'],
    ],
    database: true,
    example:
      'npx namazu client create --account ops@example.com --name "My app" --type public --redirect-uri http://127.0.0.1:3000/callback --grant authorization_code --grant refresh_token --scopes "telegram.list socket.start"',
  },
  {
    command: 'contract',
    subcommands: ['add'],
    synopsis: '--account E --plan P',
    about: 'Contracts an account to a plan; running servers apply it to open connections.',
    options: CONTRACT_OPTIONS,
    database: true,
    example: 'npx namazu contract add --account ops@example.com --plan telegram.earthquake',
  },
  {
    command: 'contract',
    subcommands: ['remove'],
    synopsis: '--account E --plan P',
    about: "Ends an account's contract for a plan; running servers close what it no longer covers.",
    options: CONTRACT_OPTIONS,
    database: true,
    example: 'npx namazu contract remove --account ops@example.com --plan telegram.earthquake',
  },
  {
    command: 'invite',
    subcommands: ['create'],
    synopsis: '[--email E] [--days N] [--by ADMIN_EMAIL]',
    about: 'Creates a single-use sign-up invitation and prints its token and link, once.',
    options: [
      ['--email E', 'only this address may accept it'],
      ['--days N', 'valid for N days, 1–90 (default 7)'],
      ['--by ADMIN_EMAIL', 'the administrator it is recorded as made by'],
    ],
    database: true,
    example: 'npx namazu invite create --email new@example.com --days 3',
  },
  {
    command: 'ingest',
    synopsis: '[--type T] [--author A] PATH…',
    about: 'Stores telegram files (files, or directories of *.xml) as they are, without moving their times.',
    options: [
      ['--type T', 'data type of files without a JMA header (VXSE53 …)'],
      ['--author A', 'author office of files without a JMA header'],
    ],
    database: true,
    example: 'npx namazu ingest samples/',
  },
  {
    command: 'convert',
    synopsis: '--rebuild',
    about: 'Re-derives the JSON conversions and the /v2/gd projections from the stored XML.',
    options: [['--rebuild', 'required: rebuild them all']],
    database: true,
    example: 'npx namazu convert --rebuild',
  },
  {
    command: 'replay',
    synopsis: '[--speed X] [--real-time] [--as-test] [--loop] PATH…',
    about:
      'Sends telegram files again, in their original order, their times moved to now. The waits between them are their real gaps divided by --speed, each at most 3 s unless --real-time. Prints a line per telegram on standard error and a summary on standard output.',
    options: [
      ['--speed X', 'divide the gaps by X, 0.01–100000 (default 1)'],
      ['--real-time', 'keep every gap (divided by --speed) instead of cutting it to 3 s'],
      ['--as-test', 'mark them 訓練 (training)'],
      ['--loop', 'start over after the last one until interrupted (Ctrl-C)'],
    ],
    database: true,
    example: 'npx namazu replay --as-test samples/',
  },
  {
    command: 'scenario',
    subcommands: ['earthquake'],
    synopsis: '--lat DEG --lon DEG --depth KM --magnitude M [--speed X] [--as-real]',
    about:
      'Generates the telegrams JMA would issue for an earthquake (EEW, intensity flash, hypocentre, details, a tsunami forecast when due) and sends them at their times divided by --speed, marked 訓練 unless --as-real. Prints a line per telegram on standard error and a summary on standard output.',
    options: [
      ['--lat DEG', 'epicentre latitude, 20–50'],
      ['--lon DEG', 'epicentre longitude, 120–155'],
      ['--depth KM', 'depth, 0–700'],
      ['--magnitude M', 'magnitude, 3–9.5'],
      ['--speed X', 'divide the times by X, 0.01–1000 (default 1; the whole runs 5 minutes at 1)'],
      ['--as-real', 'mark them 通常, as real telegrams (refused beside NAMAZU_SOURCES)'],
    ],
    database: true,
    example: 'npx namazu scenario earthquake --lat 35.7 --lon 139.7 --depth 40 --magnitude 7.1 --speed 10',
  },
  {
    command: 'stations',
    subcommands: ['import'],
    synopsis: '[--change-time ISO8601] FILE',
    about:
      "Replaces the parameter API's station list with JMA's newer one: intensity stations with positions (JSON) or tsunami points (CSV).",
    options: [['--change-time T', 'when the new list takes effect (default now)']],
    database: true,
    example: 'npx namazu stations import stations.json',
  },
  {
    command: 'backup',
    synopsis: 'FILE',
    about:
      'Writes a consistent copy of the whole database to FILE (new, in an existing folder) while the server runs.',
    options: [],
    database: true,
    example: 'npx namazu backup backups/namazu-$(date +%F).backup',
  },
  {
    command: 'restore',
    synopsis: 'FILE',
    about: 'Restores a backup into an empty data directory or database, with no server on it.',
    options: [],
    database: true,
    example: 'npx namazu restore backups/namazu-2026-01-31.backup',
  },
];

const usagesOf = (command: string) => USAGES.filter((u) => u.command === command);

/** The usage `argv` (after the command) asks about: its subcommand's, else all of the command's. */
function selected(command: string, argv: readonly string[]): CommandUsage[] {
  const all = usagesOf(command);
  const one = all.filter((u) => u.subcommands?.includes(argv[0] ?? ''));
  return one.length > 0 ? one : all;
}

const words = (u: CommandUsage) =>
  ['namazu', u.command, u.subcommands?.join('|'), u.synopsis].filter(Boolean).join(' ');

/** True when `-h` or `--help` comes before any `--`. */
export function wantsHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

/** `namazu account create --help`: where the full usage of what `argv` runs is. */
export function helpCommand(command: string, argv: readonly string[]): string {
  const [usage, ...more] = selected(command, argv);
  const sub = usage && more.length === 0 && usage.subcommands?.length === 1 ? usage.subcommands[0] : null;
  return ['namazu', command, sub, '--help'].filter(Boolean).join(' ');
}

/** The help of a command, or of its subcommand when `argv` starts with one. */
export function helpText(command: string, argv: readonly string[]): string {
  return selected(command, argv)
    .map((u) => {
      const options = [...u.options, ...(u.database ? DATABASE_OPTIONS : []), HELP_OPTION];
      const width = Math.max(...options.map(([flag]) => flag.length));
      return [
        `usage: ${words(u)}`,
        '',
        u.about,
        '',
        'options:',
        ...options.map(([flag, meaning]) => `  ${flag.padEnd(width)}  ${meaning}`),
        '',
        'example:',
        `  ${u.example}`,
        '',
      ].join('\n');
    })
    .join('\n');
}

/** The one-line usage error of a command (or its subcommand), naming its help. */
export function usageError(command: string, argv: readonly string[] = []): UsageError {
  const lines = selected(command, argv).map(words);
  return new UsageError(`usage: ${lines.join(' | ')}  (${helpCommand(command, argv)})`);
}

/** `namazu --help`: every command's synopsis. */
export function overview(): string {
  return [
    'usage: namazu <command> [options]   (npx namazu … in a checkout)',
    ...USAGES.map((u) => `  ${words(u).slice('namazu '.length)}`),
    'Commands that open the database also take --data-dir D and --database-url U. While a server',
    'runs on the embedded data directory, admin commands run in that server (its admin channel).',
    'namazu <command> --help shows a command’s options and an example.',
    '',
  ].join('\n');
}
