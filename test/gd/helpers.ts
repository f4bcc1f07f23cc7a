import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Components, TelegramJSONMain } from '@dmdata/telegram-json-types';
import type { EarthquakeDocument, EewDocument, ProjectionInput } from '../../src/gd/types.ts';
import { fixturesRoot } from '../support/fixtures.ts';

const jsonRoot = join(fixturesRoot, 'dmdata-json');

/** An official sample document: `sample('earthquake-information', 'vxse51_rjtd_20210213230936')`. */
export function sample<D = TelegramJSONMain>(schema: string, name: string): D {
  return JSON.parse(readFileSync(join(jsonRoot, 'sample-telegrams', schema, `${name}.json`), 'utf8')) as D;
}

/** A real converted document (`real-telegrams/<name>.json`). */
export function realTelegram<D = TelegramJSONMain>(name: string): D {
  return JSON.parse(readFileSync(join(jsonRoot, 'real-telegrams', `${name}.json`), 'utf8')) as D;
}

/** The document inside a captured WebSocket `data` message, with the message's id and head. */
export function realWebSocket<D = TelegramJSONMain>(
  name: string,
): { document: D; id: string; type: string; receivedTime: string } {
  const message = JSON.parse(readFileSync(join(jsonRoot, 'real-websocket', `${name}.json`), 'utf8')) as {
    id: string;
    head: { type: string };
    passing: { time: string }[];
    body: string;
  };
  return {
    document: JSON.parse(gunzipSync(Buffer.from(message.body, 'base64')).toString('utf8')) as D,
    id: message.id,
    type: message.head.type,
    receivedTime: message.passing[0]!.time,
  };
}

/** The data type code a sample file name starts with (`vxse53_rjtd_…` → VXSE53). */
export const typeOfName = (name: string) => name.slice(0, 6).toUpperCase();

let receivedBase = Date.parse('2026-01-01T00:00:00.000Z');

/** What ingest would pass: the document stored as JSON telegram `serial`. */
export function projected<D>(
  document: D,
  type: string,
  serial: number,
  options: { test?: boolean; receivedTime?: string; id?: string } = {},
): ProjectionInput<D> {
  return {
    type,
    document,
    telegram: {
      serial,
      id: options.id ?? `json-telegram-${serial}`,
      receivedTime: options.receivedTime ?? new Date((receivedBase += 1000)).toISOString(),
    },
    test: options.test ?? false,
  };
}

const header = {
  _originalId: 'source-xml-id',
  status: '通常' as const,
  editorialOffice: '気象庁本庁',
  publishingOffice: ['気象庁'],
  infoKindVersion: '1.0_1',
  headline: null,
};

const TITLES: Record<string, [type: string, title: string, infoKind: string]> = {
  VXSE51: ['震度速報', '震度速報', '震度速報'],
  VXSE52: ['震源に関する情報', '震源に関する情報', '震源速報'],
  VXSE53: ['震源・震度に関する情報', '震源・震度情報', '地震情報'],
  VXSE61: [
    '顕著な地震の震源要素更新のお知らせ',
    '顕著な地震の震源要素更新のお知らせ',
    '震源要素更新のお知らせ',
  ],
  VXSE62: ['長周期地震動に関する観測情報', '長周期地震動に関する観測情報', '長周期地震動に関する観測情報'],
};

/** A hypocentre and magnitude for built documents: area `code`, magnitude `m`, origin and arrival. */
export function quake(
  code: string,
  m: string,
  originTime: string,
  arrivalTime: string,
): Components.Earthquake {
  return {
    originTime,
    arrivalTime,
    hypocenter: {
      name: `area ${code}`,
      code,
      coordinate: {
        latitude: { text: '35.0˚N', value: '35.0000' },
        longitude: { text: '139.0˚E', value: '139.0000' },
        height: { type: '高さ', unit: 'm', value: '-10000' },
        geodeticSystem: '日本測地系',
      },
      depth: { type: '深さ', unit: 'km', value: '10' },
    },
    magnitude: { type: 'マグニチュード', unit: 'Mj', value: m },
  };
}

/**
 * A small earthquake-information (or, for VXSE61, earthquake-hypocenter-update) document: only the
 * members the merge reads, shaped as the package defines them.
 */
export function earthquakeDoc(
  type: 'VXSE51' | 'VXSE52' | 'VXSE53' | 'VXSE61' | 'VXSE62',
  o: {
    eventId: string;
    reportDateTime: string;
    pressDateTime?: string;
    targetDateTime?: string;
    serialNo?: string | null;
    cancel?: boolean;
    title?: string;
    status?: '通常' | '訓練' | '試験';
    earthquake?: Components.Earthquake;
    maxInt?: string;
    lg?: { maxLgInt: string; lgCategory: string };
  },
): EarthquakeDocument {
  const [controlTitle, title, infoKind] = TITLES[type]!;
  const body = o.cancel
    ? { text: '先ほどの情報を取り消します。' }
    : {
        ...(o.earthquake ? { earthquake: o.earthquake } : {}),
        ...(o.maxInt ? { intensity: { maxInt: o.maxInt, ...o.lg, prefectures: [], regions: [] } } : {}),
        comments: {},
      };
  return {
    ...header,
    _schema: {
      type: type === 'VXSE61' ? 'earthquake-hypocenter-update' : 'earthquake-information',
      version: '1.1.0',
    },
    type: controlTitle,
    title: o.title ?? title,
    status: o.status ?? '通常',
    infoType: o.cancel ? '取消' : '発表',
    pressDateTime:
      o.pressDateTime ?? new Date(Date.parse(o.reportDateTime) + 5000).toISOString().replace('.000', ''),
    reportDateTime: o.reportDateTime,
    targetDateTime: o.targetDateTime ?? o.reportDateTime,
    eventId: o.eventId,
    serialNo: o.serialNo ?? null,
    infoKind,
    body,
  } as unknown as EarthquakeDocument;
}

const EEW_TITLES: Record<string, string> = {
  VXSE43: '緊急地震速報（警報）',
  VXSE44: '緊急地震速報（予報）',
  VXSE45: '緊急地震速報（地震動予報）',
};

/** A small eew-information document. */
export function eewDoc(
  type: 'VXSE43' | 'VXSE44' | 'VXSE45',
  o: {
    eventId: string;
    serialNo: string;
    reportDateTime: string;
    isLastInfo?: boolean;
    cancel?: boolean;
    isWarning?: boolean;
    status?: '通常' | '訓練' | '試験';
    forecastMaxInt?: { from: string; to: string };
    text?: string;
  },
): EewDocument {
  const body = o.cancel
    ? { isLastInfo: true, isCanceled: true, text: '先ほどの、緊急地震速報を取り消します。' }
    : {
        isLastInfo: o.isLastInfo ?? false,
        isCanceled: false,
        isWarning: o.isWarning ?? false,
        earthquake: {
          ...quake('350', '4.5', o.reportDateTime, o.reportDateTime),
          hypocenter: {
            ...quake('350', '4.5', o.reportDateTime, o.reportDateTime).hypocenter,
            reduce: { code: '9350', name: 'reduced' },
            accuracy: {
              epicenters: ['1', '1'],
              depth: '1',
              magnitudeCalculation: '2',
              numberOfMagnitudeCalculation: '1',
            },
          },
        },
        ...(o.forecastMaxInt ? { intensity: { forecastMaxInt: o.forecastMaxInt, regions: [] } } : {}),
        ...(o.text ? { text: o.text } : {}),
      };
  return {
    ...header,
    _schema: { type: 'eew-information', version: '1.0.0' },
    type: EEW_TITLES[type],
    title: EEW_TITLES[type],
    status: o.status ?? '通常',
    infoType: o.cancel ? '取消' : '発表',
    pressDateTime: o.reportDateTime,
    reportDateTime: o.reportDateTime,
    targetDateTime: o.reportDateTime,
    eventId: o.eventId,
    serialNo: o.serialNo,
    infoKind: '緊急地震速報',
    body,
  } as unknown as EewDocument;
}
