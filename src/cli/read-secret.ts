/**
 * A secret typed by the operator: on a terminal, prompted for with the echo off (raw mode: nothing
 * typed is shown); otherwise the first line of standard input (`printf '%s\n' … | namazu …`).
 */
import type { Readable, Writable } from 'node:stream';
import { UsageError } from './args.ts';

/** Far above any password the accounts take: a longer input is a mistake (a file piped in). */
const MAX_CHARS = 4096;

type Terminal = Readable & { isTTY?: boolean; setRawMode?(raw: boolean): unknown };

/** The first line of a stream, without its line end; at most MAX_CHARS. */
async function firstLine(input: Readable): Promise<string> {
  let text = '';
  input.setEncoding('utf8');
  for await (const chunk of input) {
    text += chunk as string;
    const end = text.indexOf('\n');
    if (end >= 0) return text.slice(0, end).replace(/\r$/, '');
    if (text.length > MAX_CHARS) break;
  }
  if (text.length > MAX_CHARS)
    throw new UsageError(`the standard input's first line is over ${MAX_CHARS} characters`);
  return text.replace(/\r$/, '');
}

/** Reads keys in raw mode until Enter: backspace deletes, Ctrl-C and Ctrl-D give up. */
function typed(input: Terminal, output: Writable, prompt: string): Promise<string> {
  output.write(prompt);
  input.setRawMode!(true);
  input.setEncoding('utf8');
  input.resume();
  return new Promise((resolve, reject) => {
    let chars: string[] = [];
    const finish = (outcome: () => void) => {
      input.off('data', onData);
      input.setRawMode!(false);
      input.pause();
      output.write('\n');
      outcome();
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return finish(() => resolve(chars.join('')));
        if (ch === '\u0003' || ch === '\u0004')
          return finish(() => reject(new UsageError('no password given')));
        if (ch === '\u007f' || ch === '\b') chars = chars.slice(0, -1);
        else if (chars.length < MAX_CHARS) chars.push(ch);
      }
    };
    input.on('data', onData);
  });
}

/** The secret: typed twice on a terminal (the two must match), else the input's first line. */
export async function readSecret(
  prompt: string,
  input: Terminal = process.stdin,
  output: Writable = process.stderr,
): Promise<string> {
  if (!input.isTTY || !input.setRawMode) return firstLine(input);
  const first = await typed(input, output, prompt);
  const again = await typed(input, output, 'Again: ');
  if (first !== again) throw new UsageError('the two passwords differ');
  return first;
}
