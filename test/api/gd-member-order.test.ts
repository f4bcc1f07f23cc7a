/**
 * The event details write their members in the production reference's order
 * (docs/gd.md "Detail"; pdmdss/dmdata.jp gd.earthquake.event.md, gd.eew.event.md): the summary in
 * the list's order with `event.telegrams` last, and each early-warning report with its `telegrams`
 * last, whichever members are optional.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.ts';
import { testFetch } from '../support/fetch.ts';
import { ingestNamed } from './gd-support.ts';

const EARTHQUAKE = [
  '20210217140808_0_VXSE51_010000.xml',
  '20210217140847_0_VXSE52_010000.xml',
  '20210217140958_0_VXSE53_010000.xml',
];
const EEW = ['77_01_32_240613_VXSE45.xml', '77_01_33_240613_VXSE45.xml'];

describe('member order of /v2/gd/earthquake/:eventId and /v2/gd/eew/:eventId', () => {
  let server: TestServer;
  let key: string;
  /** The answer's members in the order of its text (JSON.parse keeps it for non-numeric names). */
  const body = async (path: string) => {
    const res = await testFetch(`${server.url}${path}?key=${key}`);
    assert.equal(res.status, 200);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- members are read by name
    return JSON.parse(await res.text()) as any;
  };

  before(async () => {
    server = await startTestServer();
    const { account } = await server.createAccount({
      contracts: ['telegram.earthquake', 'eew.forecast', 'eew.warning'],
    });
    key = await server.createApiKey(account.id, ['gd.earthquake', 'gd.eew']);
    await ingestNamed(server, [...EARTHQUAKE, ...EEW]);
  });
  after(() => server.close());

  it('earthquake event: the summary in the list order, telegrams last', async () => {
    const res = await body('/v2/gd/earthquake/20210217230627');
    assert.deepEqual(Object.keys(res), ['responseId', 'responseTime', 'status', 'event']);
    assert.deepEqual(Object.keys(res.event), [
      'id',
      'type',
      'eventId',
      'originTime',
      'arrivalTime',
      'hypocenter',
      'magnitude',
      'maxInt',
      'telegrams',
    ]);
    const list = await body('/v2/gd/earthquake');
    assert.deepEqual(Object.keys(list.items[0]), Object.keys(res.event).slice(0, -1));
  });

  it('early-warning event: each report as the list writes it, telegrams last', async () => {
    const res = await body('/v2/gd/eew/20240417231454');
    assert.deepEqual(
      res.items.map((r: object) => Object.keys(r)),
      [
        ['id', 'eventId', 'serial', 'dateTime', 'isLastInfo', 'isCanceled', 'text', 'telegrams'],
        [
          'id',
          'eventId',
          'serial',
          'dateTime',
          'isLastInfo',
          'isCanceled',
          'isWarning',
          'earthquake',
          'intensity',
          'telegrams',
        ],
      ],
    );
  });
});
