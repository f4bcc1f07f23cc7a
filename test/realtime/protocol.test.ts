import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { test } from 'node:test';
import { chooseSubprotocol, dataMessage, parseClientMessage } from '../../src/realtime/protocol.ts';
import { record } from '../support/realtime.ts';

test('the offered subprotocol is echoed; none or unknown ones give none', () => {
  assert.equal(chooseSubprotocol(new Set(['service.v2'])), 'service.v2');
  assert.equal(chooseSubprotocol(new Set(['dmdata.v2'])), 'dmdata.v2');
  assert.equal(chooseSubprotocol(new Set(['chat', 'dmdata.v2'])), 'dmdata.v2');
  assert.equal(chooseSubprotocol(new Set()), false);
  assert.equal(chooseSubprotocol(new Set(['chat'])), false);
});

test('client messages: ping, pong, unknown types and non-JSON', () => {
  assert.deepEqual(parseClientMessage('{"type":"ping","pingId":"a1"}'), { type: 'ping', pingId: 'a1' });
  assert.deepEqual(parseClientMessage('{"type":"ping"}'), { type: 'ping' });
  assert.deepEqual(parseClientMessage('{"type":"pong","pingId":"zz"}'), { type: 'pong', pingId: 'zz' });
  assert.deepEqual(parseClientMessage('{"type":"pong"}'), { type: 'pong', pingId: undefined });
  assert.deepEqual(parseClientMessage('{"type":"hello"}'), { type: 'other' });
  for (const bad of ['', 'ping', '{', '[1]', '"x"', 'null', '12']) {
    assert.deepEqual(parseClientMessage(bad), { type: 'invalid' }, bad);
  }
});

test('a data message carries the telegram with its body encoded as announced', () => {
  const xml = Buffer.from('<Report>地震</Report>');
  const gz = gzipSync(xml);
  const r = record({ body: gz, classification: 'eew.forecast', type: 'VXSE45' });
  const passing = [
    { name: 'ingest', time: '2026-01-01T00:00:01.000Z' },
    { name: 'ws', time: '2026-01-01T00:00:01.002Z' },
  ];
  const msg = JSON.parse(dataMessage(r, passing).toString()) as Record<string, unknown>;
  assert.deepEqual(Object.keys(msg), [
    'type',
    'version',
    'classification',
    'id',
    'passing',
    'head',
    'format',
    'compression',
    'encoding',
    'body',
  ]);
  assert.equal(msg.type, 'data');
  assert.equal(msg.version, '2.0');
  assert.equal(msg.classification, 'eew.forecast');
  assert.deepEqual(msg.passing, passing);
  assert.deepEqual(msg.head, {
    type: 'VXSE45',
    author: 'JPOS',
    time: '2026-01-01T00:00:00.000Z',
    designation: null,
    test: false,
    xml: true,
  });
  const bytes = Buffer.from(msg.body as string, 'base64');
  assert.equal(msg.id, createHash('sha384').update(bytes).digest('hex'));
  assert.deepEqual(gunzipSync(bytes), xml);

  const plain = record({ body: xml, compression: null, encoding: 'utf-8', type: 'VGSK50' });
  const m2 = JSON.parse(dataMessage(plain, []).toString()) as Record<string, unknown>;
  assert.equal(m2.body, '<Report>地震</Report>');
  assert.equal(m2.compression, null);
  assert.equal(m2.encoding, 'utf-8');
});
