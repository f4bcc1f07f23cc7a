/**
 * The archive format of embedded backups (src/db/tar.ts): what it writes reads back, standard tar
 * lists it, and a damaged, truncated or hostile archive is refused.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { extractTar, TarError, TarWriter, type TarEntry } from '../../src/db/tar.ts';

async function archive(build: (tar: TarWriter) => Promise<void>): Promise<Buffer> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  const tar = new TarWriter(out);
  await build(tar);
  await tar.end();
  out.end();
  return Buffer.concat(chunks);
}

async function read(data: Buffer): Promise<{ entry: TarEntry; bytes: Buffer }[]> {
  const out: { entry: TarEntry; bytes: Buffer }[] = [];
  // Small pieces: headers and contents cross chunk boundaries.
  async function* pieces() {
    for (let i = 0; i < data.length; i += 300) yield data.subarray(i, i + 300);
  }
  await extractTar(pieces(), async (entry) => {
    const chunks: Buffer[] = [];
    return {
      write: async (c) => void chunks.push(c),
      close: async () => void out.push({ entry, bytes: Buffer.concat(chunks) }),
    };
  });
  return out;
}

test('files and directories read back byte for byte, and tar lists them', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'namazu-tar-'));
  try {
    const big = Buffer.alloc(1_500_000, 7);
    big.write('end', big.length - 3);
    writeFileSync(join(dir, 'big'), big);
    const fh = await open(join(dir, 'big'), 'r');
    const data = await archive(async (tar) => {
      await tar.buffer('manifest.json', Buffer.from('{"a":1}'));
      await tar.directory('pg/base');
      await tar.file('pg/base/16384', fh, big.length, 0);
      // A file that shrank while being read is padded to the size announced.
      await tar.file('pg/base/shrunk', fh, big.length + 10, 0);
    });
    await fh.close();
    const entries = await read(data);
    assert.deepEqual(
      entries.map((e) => [e.entry.name, e.entry.type, e.bytes.length]),
      [
        ['manifest.json', 'file', 7],
        ['pg/base', 'directory', 0],
        ['pg/base/16384', 'file', big.length],
        ['pg/base/shrunk', 'file', big.length + 10],
      ],
    );
    assert.ok(entries[2]!.bytes.equals(big));
    assert.ok(entries[3]!.bytes.subarray(big.length).equals(Buffer.alloc(10)));
    writeFileSync(join(dir, 'a.tar'), data);
    const listed = spawnSync('tar', ['tf', join(dir, 'a.tar')], { encoding: 'utf8' });
    assert.equal(listed.stdout, 'manifest.json\npg/base/\npg/base/16384\npg/base/shrunk\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a truncated, damaged or hostile archive is refused', async () => {
  const good = await archive((tar) => tar.buffer('pg/PG_VERSION', Buffer.from('18\n')));
  await assert.rejects(read(good.subarray(0, 700)), TarError);
  const damaged = Buffer.from(good);
  damaged[3] = 0x41; // a byte of the name: the checksum no longer matches
  await assert.rejects(read(damaged), /checksum/);
  for (const name of ['../etc/passwd', '/etc/passwd', 'pg/../../x', 'pg//x'])
    await assert.rejects(
      archive((tar) => tar.buffer(name, Buffer.from('x'))),
      TarError,
    );
  // A hostile name written by another tool: same header, name patched, checksum recomputed.
  const hostile = Buffer.from(good);
  hostile.fill(0, 0, 100);
  hostile.write('../x', 0);
  hostile.write('        ', 148);
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += hostile[i]!;
  hostile.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
  await assert.rejects(read(hostile), /unexpected name/);
});

test('writing to an archive stream closed while full fails instead of waiting for ever', async () => {
  const out = new PassThrough({ highWaterMark: 1024 }); // never read: it fills at once
  const tar = new TarWriter(out);
  const writing = tar.buffer('pg/big', Buffer.alloc(1024 * 1024));
  setImmediate(() => out.destroy());
  await assert.rejects(writing, /closed/);
});
