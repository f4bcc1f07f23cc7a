/**
 * `namazu <command> [<subcommand>] --help` and `-h` (docs/operations.md, "Command line"): every
 * command answers with its usage, options and an example, status 0, without opening a database;
 * every option its help names is one the command takes; an unknown option names the help.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { restoreCommand } from '../../src/cli/backup.ts';
import { adminCommands, runCommand, type Command } from '../../src/cli/commands.ts';
import type { CommandIo } from '../../src/cli/database.ts';
import { migrateCommand, serveCommand } from '../../src/cli/serve.ts';
import { NAMAZU_BIN, NODE_FLAGS } from '../support/namazu-bin.ts';
import { cleanEnv } from '../support/processes.ts';

/** Every command and subcommand of `namazu`, as README's "Command line" lists them. */
const COMMANDS: [string, string | null][] = [
  ['serve', null],
  ['migrate', null],
  ['account', 'create'],
  ['account', 'password'],
  ['account', 'limit'],
  ['apikey', 'create'],
  ['client', 'create'],
  ['contract', 'add'],
  ['contract', 'remove'],
  ['invite', 'create'],
  ['ingest', null],
  ['convert', null],
  ['replay', null],
  ['scenario', 'earthquake'],
  ['stations', 'import'],
  ['backup', null],
  ['restore', null],
];

const commands: Record<string, Command> = {
  ...adminCommands,
  serve: (argv) => serveCommand(argv),
  migrate: (argv) => migrateCommand(argv),
  restore: restoreCommand,
};

/** Runs a command in this process; no database is reachable (a data directory that does not exist). */
async function inProcess(name: string, argv: string[]) {
  let stdout = '';
  let stderr = '';
  const io: CommandIo = {
    cwd: process.cwd(),
    withDatabase: () => Promise.reject(new Error('the command opened the database')),
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
  };
  const code = await runCommand(name, commands[name]!, argv, io);
  return { code, stdout, stderr };
}

function spawnNamazu(args: string[], dataDir: string) {
  return spawnSync(process.execPath, [...NODE_FLAGS, NAMAZU_BIN, ...args], {
    env: cleanEnv({ NAMAZU_DATA_DIR: dataDir }),
    encoding: 'utf8',
    timeout: 30_000,
  });
}

test('every command and subcommand answers --help (the real executable) and -h with usage, options and an example', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'namazu-help-'));
  const dataDir = join(dir, 'data');
  try {
    for (const [name, sub] of COMMANDS) {
      const words = sub ? [name, sub] : [name];
      const spawned = spawnNamazu([...words, '--help'], dataDir);
      assert.equal(spawned.status, 0, `${words.join(' ')} --help: ${spawned.stderr}`);
      assert.equal(spawned.stderr, '');
      const short = await inProcess(name, sub ? [sub, '-h'] : ['-h']);
      assert.equal(short.code, 0);
      assert.equal(short.stdout, spawned.stdout, `${words.join(' ')}: -h and --help say the same`);

      const help = spawned.stdout;
      assert.match(help, new RegExp(`^usage: namazu ${name}( |\n)`));
      const [usageLine] = help.split('\n');
      assert.ok(sub === null || usageLine!.split(' ')[3]!.split('|').includes(sub), usageLine);
      assert.match(help, /\noptions:\n( {2}.+\n)+\nexample:\n {2}npx namazu .+\n/);
      const example = /\nexample:\n {2}(npx namazu .+)\n/.exec(help)![1]!;
      assert.ok(example.includes(`npx namazu ${words.join(' ')}`), example);
      assert.match(help, /-h, --help/);
    }
    // Nothing ran: no data directory was made.
    assert.deepEqual(readdirSync(dir), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every option a help names is one its command takes', async () => {
  for (const [name, sub] of COMMANDS) {
    const words = sub ? [sub] : [];
    const { stdout } = await inProcess(name, [...words, '--help']);
    const options = [...stdout.matchAll(/^ {2}(--[a-z-]+)( \S+)?/gm)];
    assert.ok(options.length > 0 || ['migrate', 'backup', 'restore'].includes(name), name);
    for (const [, flag, value] of options) {
      // The option, then one that exists nowhere: the parser must stop at the second one.
      const argv = [...words, flag!, ...(value ? ['x'] : []), '--no-such-option'];
      const r = await inProcess(name, argv);
      assert.equal(r.code, 2, `${name} ${argv.join(' ')}`);
      assert.match(r.stderr, new RegExp(`^namazu ${name}: unknown option --no-such-option \\(see namazu `));
    }
  }
});

test('an unknown option or subcommand is one line naming the help, status 2; namazu --help and help <command>', () => {
  const dir = mkdtempSync(join(tmpdir(), 'namazu-help-'));
  try {
    const data = join(dir, 'data');
    const unknown = spawnNamazu(['account', 'create', '--bogus'], data);
    assert.equal(unknown.status, 2);
    assert.equal(unknown.stdout, '');
    assert.equal(
      unknown.stderr,
      'namazu account: unknown option --bogus (see namazu account create --help)\n',
    );

    const sub = spawnNamazu(['contract', 'swap'], data);
    assert.equal(sub.status, 2);
    assert.match(
      sub.stderr,
      /^namazu contract: usage: namazu contract add .* \| namazu contract remove .*\(namazu contract --help\)\n$/,
    );

    const all = spawnNamazu(['--help'], data);
    assert.equal(all.status, 0);
    for (const [name, subcommand] of COMMANDS)
      assert.match(all.stdout, new RegExp(`^ {2}${name}( \\S*${subcommand ?? ''}|$| )`, 'm'), name);
    const viaHelp = spawnNamazu(['help', 'backup'], data);
    assert.equal(viaHelp.status, 0);
    assert.match(viaHelp.stdout, /^usage: namazu backup FILE\n/);
    assert.deepEqual(readdirSync(dir), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
