import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { v2ItemsJson } from '../../src/api/telegram-items.ts';
import type { TelegramSummary } from '../../src/telegrams/store.ts';
import { summaryBytes } from '../../src/telegrams/summary-bytes.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** The heap and the buffers outside it, once garbage is collected. */
function heldMemory(): number {
  gc();
  gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

/** A row as the database gives it: its texts decoded from UTF-8, flat strings of their own. */
function row(serial: number, headline: string): TelegramSummary {
  const text = (s: string) => Buffer.from(s, 'utf8').toString('utf8');
  return {
    serial,
    id: text(serial.toString(16).padStart(96, '0')),
    classification: 'telegram.volcano',
    head: {
      type: 'VFVO51',
      author: 'JPOS',
      time: '2015-10-08T06:00:00.000Z',
      designation: null,
      test: false,
      xml: true,
    },
    receivedTime: text('2026-01-01T00:00:00.000Z'),
    format: 'xml',
    xmlReport: {
      control: {
        title: text('火山の状況に関する解説情報'),
        dateTime: '',
        status: '通常',
        editorialOffice: '',
        publishingOffice: '',
      },
      head: {
        title: '',
        reportDateTime: '',
        targetDateTime: '',
        eventId: null,
        serial: null,
        infoType: '発表',
        infoKind: '',
        infoKindVersion: '',
        headline: text(headline),
      },
    },
    compression: 'gzip',
    encoding: 'base64',
  };
}

for (const [kind, char] of [
  ['Japanese', '火'],
  ['ASCII with quotes to escape', '"'],
] as const) {
  test(`summaryBytes covers a row with a long ${kind} headline and the list forms kept with it`, () => {
    const before = heldMemory();
    const items = Array.from({ length: 10 }, (_, i) => row(i + 1, char.repeat(200_000) + i));
    // What a page keeps with its rows: each row's two serialised list items (with and without
    // xmlReport), and the items of the page as UTF-8, one form at a time.
    const first = v2ItemsJson(items, 'http://127.0.0.1:8080', true).length;
    v2ItemsJson(items, 'http://127.0.0.1:8080', false);
    const kept = v2ItemsJson(items, 'http://127.0.0.1:8080', true);
    const held = heldMemory() - before;
    const estimated = items.reduce((sum, t) => sum + summaryBytes(t), 0);
    assert.ok(first > 2_000_000 && kept.length === first, 'the items were serialised with their headlines');
    assert.ok(held <= estimated, `held ${held} bytes, estimated ${estimated}`);
    // Still referenced here, so that the collector could not take them before the measure.
    assert.equal(items.length + kept.length, 10 + first);
  });
}
