/**
 * A minimal ustar archive writer and reader for backups of the embedded database (db/backup-pglite.ts):
 * regular files and directories with short relative names, streamed in both directions so a
 * backup of any size needs a fixed amount of memory. Standard `tar` reads what this writes.
 */
import { once } from 'node:events';
import type { FileHandle } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { CodedError } from '../errors.ts';

const BLOCK = 512;
const NAME_BYTES = 100;
/** The largest size a ustar header holds (11 octal digits). */
const MAX_SIZE = 0o77777777777;
const CHUNK = 1024 * 1024;

export class TarError extends CodedError {
  constructor(message: string) {
    super('ARCHIVE_DAMAGED', { message });
  }
}

/** A safe relative name: letters, digits, `_.-` and `/`, no empty, `.` or `..` part. */
function checkName(name: string): void {
  const parts = name.replace(/\/$/, '').split('/');
  if (
    !/^[A-Za-z0-9_./-]+$/.test(name) ||
    Buffer.byteLength(name) >= NAME_BYTES ||
    parts.some((p) => p === '' || p === '.' || p === '..')
  )
    throw new TarError(`unexpected name in archive: ${JSON.stringify(name.slice(0, 200))}`);
}

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

function header(name: string, type: '0' | '5', size: number, mode: number, mtime: number): Buffer {
  checkName(name);
  if (size > MAX_SIZE) throw new TarError(`${name} is too large for the archive (${size} bytes)`);
  const h = Buffer.alloc(BLOCK);
  h.write(name, 0, 'utf8');
  h.write(octal(mode, 8), 100, 'ascii');
  h.write(octal(0, 8), 108, 'ascii');
  h.write(octal(0, 8), 116, 'ascii');
  h.write(octal(size, 12), 124, 'ascii');
  h.write(octal(Math.floor(mtime), 12), 136, 'ascii');
  h.write('        ', 148, 'ascii');
  h.write(type, 156, 'ascii');
  h.write('ustar\0' + '00', 257, 'ascii');
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 'ascii');
  return h;
}

/** Writes an archive to `out`, waiting whenever `out` asks to (backpressure). */
export class TarWriter {
  constructor(private readonly out: Writable) {}

  private async write(chunk: Buffer): Promise<void> {
    if (this.out.destroyed) throw new TarError('the archive stream was closed');
    if (this.out.write(chunk)) return;
    // A stream destroyed while full never drains: its close ends the wait too.
    const stop = new AbortController();
    try {
      await Promise.race([
        once(this.out, 'drain', { signal: stop.signal }),
        once(this.out, 'close', { signal: stop.signal }).then(() => {
          throw new TarError('the archive stream was closed');
        }),
      ]);
    } finally {
      stop.abort();
    }
  }

  async directory(name: string, mtime = Date.now() / 1000): Promise<void> {
    await this.write(header(name.endsWith('/') ? name : name + '/', '5', 0, 0o700, mtime));
  }

  async buffer(name: string, data: Buffer, mtime = Date.now() / 1000): Promise<void> {
    await this.write(header(name, '0', data.length, 0o600, mtime));
    await this.write(data);
    await this.padding(data.length);
  }

  /**
   * Copies `size` bytes of an open file. A file that shrank meanwhile is padded with zeros, one
   * that grew is cut at `size`: the archive stays well-formed whatever the file does while read.
   */
  async file(name: string, fh: FileHandle, size: number, mtime: number): Promise<void> {
    await this.write(header(name, '0', size, 0o600, mtime));
    let done = 0;
    while (done < size) {
      const buf = Buffer.alloc(Math.min(CHUNK, size - done));
      const { bytesRead } = await fh.read(buf, 0, buf.length, done);
      if (bytesRead === 0) {
        await this.write(Buffer.alloc(size - done));
        break;
      }
      await this.write(bytesRead === buf.length ? buf : buf.subarray(0, bytesRead));
      done += bytesRead;
    }
    await this.padding(size);
  }

  private async padding(size: number): Promise<void> {
    const rest = (BLOCK - (size % BLOCK)) % BLOCK;
    if (rest > 0) await this.write(Buffer.alloc(rest));
  }

  /** The two zero blocks that end an archive. */
  async end(): Promise<void> {
    await this.write(Buffer.alloc(2 * BLOCK));
  }
}

export interface TarEntry {
  name: string;
  type: 'file' | 'directory';
  size: number;
}

/** Where a file entry's bytes go: `write` for each piece, then `close`. */
export interface EntrySink {
  write(chunk: Buffer): Promise<void>;
  close(): Promise<void>;
}

function parseOctal(h: Buffer, offset: number, width: number): number {
  const text = h
    .toString('ascii', offset, offset + width)
    .replace(/[\0 ]+$/, '')
    .replace(/^ +/, '');
  if (!/^[0-7]+$/.test(text)) throw new TarError('damaged archive header');
  return parseInt(text, 8);
}

function parseHeader(h: Buffer): TarEntry {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : h[i]!;
  if (sum !== parseOctal(h, 148, 8)) throw new TarError('damaged archive header (checksum)');
  const end = h.indexOf(0, 0);
  const name = h.toString('utf8', 0, end < 0 || end > NAME_BYTES ? NAME_BYTES : end);
  if (h[345] !== 0) throw new TarError('unexpected long name in archive');
  checkName(name);
  const flag = String.fromCharCode(h[156]!);
  if (flag === '5') return { name: name.replace(/\/$/, ''), type: 'directory', size: 0 };
  if (flag === '0' || flag === '\0') return { name, type: 'file', size: parseOctal(h, 124, 12) };
  throw new TarError(`unexpected entry type in archive: ${name}`);
}

/**
 * Reads an archive from `source` and hands each entry to `onEntry`, which answers where a file's
 * bytes go (or null to skip them). Rejects a damaged or truncated archive, or one with an entry
 * this writer never makes (links, devices, absolute or `..` names).
 */
export async function extractTar(
  source: AsyncIterable<Buffer>,
  onEntry: (entry: TarEntry) => Promise<EntrySink | null>,
): Promise<void> {
  let pending: Buffer = Buffer.alloc(0);
  let entry: { sink: EntrySink | null; left: number; pad: number } | null = null;
  let ended = false;
  for await (const chunk of source) {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      if (ended) {
        pending = Buffer.alloc(0);
        break;
      }
      if (entry) {
        if (entry.left > 0) {
          if (pending.length === 0) break;
          const piece = pending.subarray(0, Math.min(entry.left, pending.length));
          if (entry.sink) await entry.sink.write(Buffer.from(piece));
          entry.left -= piece.length;
          pending = pending.subarray(piece.length);
          continue;
        }
        if (pending.length < entry.pad) break;
        pending = pending.subarray(entry.pad);
        await entry.sink?.close();
        entry = null;
        continue;
      }
      if (pending.length < BLOCK) break;
      const h = pending.subarray(0, BLOCK);
      pending = pending.subarray(BLOCK);
      if (h.every((b) => b === 0)) {
        ended = true;
        continue;
      }
      const e = parseHeader(h);
      const sink = await onEntry(e);
      entry = { sink, left: e.size, pad: (BLOCK - (e.size % BLOCK)) % BLOCK };
    }
  }
  if (!ended || entry) throw new TarError('truncated archive');
}
