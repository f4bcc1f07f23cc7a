import type { VolcanoInformation } from '@dmdata/telegram-json-types';
import { convertCoordinate } from '../coordinate.ts';
import { cancellationBody, isCancellation, writtenText } from '../free-text.ts';
import { buildDocument } from '../head.ts';
import type { ConversionSource, Converter } from '../types.ts';
import { trimmedText, type XmlElement } from '../xml-element.ts';

type Comments = VolcanoInformation.v1_0_0.Comments;
type Eruption = VolcanoInformation.v1_0_0.Eruption;
type EruptionPlume = VolcanoInformation.v1_0_0.EruptionPlume;
type AshForecast = VolcanoInformation.v1_0_0.AshForecast;
type AshForecastItem = VolcanoInformation.v1_0_0.AshForecastItem;

/** A kind as the body lists it: code and name, with the change and the previous kind when the XML gives them. */
interface Kind {
  code: string;
  name: string;
  formalName?: string;
  condition?: string;
  lastKind?: { code: string; name: string };
}

/** An area (municipality, sea area) with every kind the telegram names for it. */
/** A volcano as `target`/`targets[]` write it. */
type VolcanoCoordinate = ReturnType<typeof convertCoordinate>;

interface Target {
  code: string;
  name: string;
  coordinate: VolcanoCoordinate;
  areaFromMark?: string;
  crater?: { name: string | null; coordinate?: VolcanoCoordinate };
  kind: Kind;
}

interface AreaKinds {
  code: string;
  name: string;
  kinds: Kind[];
}

/**
 * 噴火警報・予報 (VFVO50), 火山の状況に関する解説情報 (VFVO51), 噴火に関する火山観測報 (VFVO52),
 * 降灰予報 (VFVO53–55), 噴火速報 (VFVO56), 火山現象に関する海上警報・海上予報 (VFSV50–61) and
 * 火山に関するお知らせ (VZVO40) → volcano-information 1.0.0 (docs/conversion/volcano-information.md).
 */
export const volcanoInformation: Converter = {
  schema: { type: 'volcano-information', version: '1.0.0' },
  convert(source) {
    const document = buildDocument(
      source,
      this.schema,
      isCancellation(source) ? cancellationBody(source) : convertBody(source),
    );
    // 噴火に関する火山観測報 may leave TargetDateTime empty (time of the eruption unknown): null.
    return document.targetDateTime === ''
      ? { ...document, targetDateTime: null as unknown as string }
      : document;
  },
};

function convertBody(source: ConversionSource): object {
  const body = source.report.child('Body');
  const type = source.type.startsWith('VFSV') ? 'VFSV' : source.type;
  const infos = body?.all('VolcanoInfo') ?? [];
  const notice = writtenText(body?.child('Notice'));
  const text = writtenText(body?.child('Text'));
  const volcanoInfo = infos.find((info) => areaCodeType(info) === '火山名');
  const withType = (suffix: string) => infos.find((info) => info.attr('type')?.endsWith(suffix));
  let parts: object;
  switch (type) {
    case 'VFVO50':
      parts = {
        target: firstTarget(volcanoInfo),
        cities: areaKinds(withType('（対象市町村等）')),
        disasterPreventions: areaKinds(withType('（対象市町村の防災対応等）')),
        comments: convertComments(body),
      };
      break;
    case 'VFVO51':
      parts = { targets: targets(volcanoInfo), comments: convertComments(body) };
      break;
    case 'VFVO52':
      parts = { target: firstTarget(volcanoInfo), eruption: convertEruption(body, volcanoInfo) };
      break;
    case 'VFVO53':
      parts = {
        target: firstTarget(volcanoInfo),
        cities: areaKinds(withType('（対象市町村等）')),
        comments: convertComments(body),
        ash: convertAsh(body),
      };
      break;
    case 'VFVO54':
    case 'VFVO55':
      parts = {
        target: firstTarget(volcanoInfo),
        cities: areaKinds(withType('（対象市町村等）')),
        eruption: convertEruption(body, volcanoInfo),
        comments: convertComments(body),
        ash: convertAsh(body),
      };
      break;
    case 'VFVO56': {
      const eventDateTime = convertEruption(body, volcanoInfo).eventDateTime;
      // 噴火速報's target is the volcano and its kind alone (production's schema has nothing else).
      const { code, name, kind } = firstTarget(volcanoInfo);
      parts = {
        target: { code, name, kind },
        cities: areaKinds(withType('（対象市町村等）')),
        eruption: eventDateTime ? { eventDateTime } : {},
        comments: convertComments(body),
      };
      break;
    }
    case 'VFSV':
      parts = {
        target: firstTarget(volcanoInfo),
        oceanZones: areaKinds(withType('（対象海上予報区）')),
        comments: convertComments(body),
      };
      break;
    default:
      // 火山に関するお知らせ (VZVO40): free text only.
      return { ...(notice !== undefined ? { notice } : {}), text: text ?? '' };
  }
  return {
    ...(notice !== undefined ? { notice } : {}),
    ...parts,
    ...(text !== undefined ? { text } : {}),
  };
}

const areaCodeType = (info: XmlElement) => info.at('Item/Areas')?.attr('codeType');
/** `Kind` with `LastKind` of one item: the change (`Condition`) and the previous kind only when the XML has them. */
function convertKind(item: XmlElement): Kind {
  const kind = item.child('Kind');
  const formalName = trimmedText(kind?.child('FormalName'));
  const condition = kind?.child('Condition');
  const lastKind = item.child('LastKind');
  return {
    code: trimmedText(kind?.child('Code')),
    name: trimmedText(kind?.child('Name')),
    ...(formalName !== '' ? { formalName } : {}),
    ...(condition !== undefined ? { condition: condition.text.trim() } : {}),
    ...(lastKind !== undefined
      ? { lastKind: { code: trimmedText(lastKind.child('Code')), name: trimmedText(lastKind.child('Name')) } }
      : {}),
  };
}

/** The volcano(es) of the 火山名 items: code, name, coordinate, position note, crater and kind. */
function targets(info: XmlElement | undefined): Target[] {
  return (info?.all('Item') ?? []).flatMap((item) => {
    const kind = convertKind(item);
    return (item.child('Areas')?.all('Area') ?? []).map((area) => convertTarget(area, kind));
  });
}

function firstTarget(info: XmlElement | undefined): Target {
  const [target] = targets(info);
  if (!target) throw new Error('no volcano (Areas codeType="火山名") in the telegram');
  return target;
}

function convertTarget(area: XmlElement, kind: Kind): Target {
  const areaFromMark = trimmedText(area.child('AreaFromMark'));
  const craterName = trimmedText(area.child('CraterName'));
  const craterCoordinate = area.child('CraterCoordinate');
  return {
    code: trimmedText(area.child('Code')),
    name: trimmedText(area.child('Name')),
    // jmx_volc's Area may omit Coordinate: the schema's target always has one, so 不明 stands in.
    coordinate: convertCoordinate(area.child('Coordinate')),
    ...(areaFromMark !== '' ? { areaFromMark } : {}),
    ...(craterName !== '' || craterCoordinate !== undefined
      ? {
          crater: {
            name: craterName === '' ? null : craterName,
            ...(craterCoordinate !== undefined ? { coordinate: convertCoordinate(craterCoordinate) } : {}),
          },
        }
      : {}),
    kind,
  };
}

/**
 * Items × areas regrouped by area: one entry per area code (first appearance order) with the kinds
 * of every item that names it, in document order.
 */
function areaKinds(info: XmlElement | undefined): AreaKinds[] {
  const byCode = new Map<string, AreaKinds>();
  for (const item of info?.all('Item') ?? []) {
    const kind = convertKind(item);
    for (const area of item.child('Areas')?.all('Area') ?? []) {
      const code = trimmedText(area.child('Code'));
      let entry = byCode.get(code);
      if (!entry) {
        entry = { code, name: trimmedText(area.child('Name')), kinds: [] };
        byCode.set(code, entry);
      }
      entry.kinds.push(kind);
    }
  }
  return [...byCode.values()];
}

/** `VolcanoInfoContent`: each text as written; absent texts are left out. */
function convertComments(body: XmlElement | undefined): Comments {
  const content = body?.child('VolcanoInfoContent');
  const fields: [keyof Comments, string][] = [
    ['headline', 'VolcanoHeadline'],
    ['activity', 'VolcanoActivity'],
    ['prevention', 'VolcanoPrevention'],
    ['otherInfo', 'OtherInfo'],
    ['appendix', 'Appendix'],
    ['text', 'Text'],
  ];
  const comments: Comments = {};
  for (const [field, element] of fields) {
    const text = writtenText(content?.child(element));
    if (text !== undefined) comments[field] = text;
  }
  return comments;
}

/**
 * The eruption: its time (the observation's `EventTime`, else the volcano item's), the coloured and
 * white plumes, and the observation's appendix and other observations.
 */
function convertEruption(body: XmlElement | undefined, volcanoInfo: XmlElement | undefined): Eruption {
  const observation = body?.child('VolcanoObservation');
  const eventDateTime =
    observation?.at('EventTime/EventDateTime') ?? volcanoInfo?.at('Item/EventTime/EventDateTime');
  const eventTime = trimmedText(eventDateTime);
  const colorPlume = observation?.child('ColorPlume');
  const whitePlume = observation?.child('WhitePlume');
  const appendix = writtenText(observation?.child('Appendix'));
  const otherObservation = writtenText(observation?.child('OtherObservation'));
  const dubious = eventDateTime?.attr('dubious');
  return {
    ...(eventTime !== ''
      ? {
          eventDateTime: {
            value: eventTime,
            validFormat: eventDateTime?.attr('significant') ?? '',
            ...(dubious ? { dubious: dubious as '頃' } : {}),
          },
        }
      : {}),
    ...(colorPlume ? { colorPlume: convertPlume(colorPlume) } : {}),
    ...(whitePlume ? { whitePlume: convertPlume(whitePlume) } : {}),
    ...(appendix !== undefined ? { appendix } : {}),
    ...(otherObservation !== undefined ? { otherObservation } : {}),
  };
}

function convertPlume(plume: XmlElement): EruptionPlume {
  const aboveCrater = plume.child('PlumeHeightAboveCrater');
  const seaLevel = plume.child('PlumeHeightAboveSeaLevel');
  const direction = plume.child('PlumeDirection');
  const comment = writtenText(plume.child('PlumeComment'));
  return {
    ...(aboveCrater
      ? {
          heightAboveCrater: {
            type: (aboveCrater.attr('type') ?? '火口上噴煙高度') as '火口上噴煙高度',
            unit: 'm' as const,
            ...plumeValue(aboveCrater),
          },
        }
      : {}),
    ...(seaLevel
      ? { heightSeaLevel: { type: '海抜噴煙高度' as const, unit: 'ft' as const, ...plumeValue(seaLevel) } }
      : {}),
    ...(direction ? { direction: plumeDirection(direction) } : {}),
    ...(comment !== undefined ? { comment } : {}),
  } as EruptionPlume;
}

/** A plume height: the number as written, the `condition` attribute when given; no number → null. */
function plumeValue(height: XmlElement): { value: string | null; condition?: string } {
  const value = height.text.trim();
  const condition = height.attr('condition');
  return { value: value === '' ? null : value, ...(condition ? { condition } : {}) };
}

/**
 * The plume's direction: its text (eight points, 直上, 流向不明); an unknown one written as JMA writes
 * unknown heights (condition 不明, no text) is 流向不明; no text otherwise, or 噴煙なし, is no plume.
 */
function plumeDirection(direction: XmlElement): EruptionPlume['direction'] {
  const value = direction.text.trim();
  if (value === '' && direction.attr('condition') === '不明') {
    return { type: '噴煙の流向', unit: '漢字', value: '流向不明' };
  }
  if (value === '' || value === '噴煙なし' || direction.attr('condition') === '噴煙なし') {
    return { type: '噴煙の流向', unit: '漢字', value: null, condition: '噴煙なし' };
  }
  return { type: '噴煙の流向', unit: '漢字', value: value as VolcanoInformation.v1_0_0.Direction8 };
}

/** `AshInfos/AshInfo`: one forecast per time range. */
function convertAsh(body: XmlElement | undefined): VolcanoInformation.v1_0_0.Ash {
  return { forecasts: (body?.at('AshInfos')?.all('AshInfo') ?? []).map(convertAshForecast) };
}

const FULL_WIDTH_DIGITS = /[０-９]/gu;
const toAsciiDigits = (text: string) =>
  text.replace(FULL_WIDTH_DIGITS, (d) => String.fromCharCode(d.charCodeAt(0) - 0xfee0));

/** `予報\u3000３時間後` → type 予報, elapsed PT3H (also minutes: `３０分後` → PT30M). */
function convertAshForecast(info: XmlElement): AshForecast {
  const [kind = '', offset = ''] = (info.attr('type') ?? '').split(/[\s\u3000]+/u);
  const elapsed = /^(\d+)(時間|分)後$/u.exec(toAsciiDigits(offset));
  return {
    type: kind as '予報',
    elapsedTime: elapsed ? `PT${elapsed[1]}${elapsed[2] === '分' ? 'M' : 'H'}` : '',
    startTime: trimmedText(info.child('StartTime')),
    endTime: trimmedText(info.child('EndTime')),
    items: info.all('Item').map(convertAshItem),
  };
}

function convertAshItem(item: XmlElement): AshForecastItem {
  const kind = item.child('Kind');
  const property = kind?.child('Property');
  const size = property?.child('Size');
  const direction = property?.child('PlumeDirection');
  const distance = property?.child('Distance');
  const remark = writtenText(property?.child('Remark'));
  return {
    code: trimmedText(kind?.child('Code')),
    name: trimmedText(kind?.child('Name')),
    polygons: (property?.all('Polygon') ?? []).map((polygon) => parsePolygon(polygon.text)),
    ...(size
      ? {
          size: {
            type: size.attr('type') ?? '',
            unit: size.attr('unit') ?? '',
            value: size.text.trim(),
          } as AshForecastItem['size'],
        }
      : {}),
    direction: {
      type: (direction?.attr('type') ?? '') as AshForecastItem['direction']['type'],
      unit: '漢字',
      value: trimmedText(direction) as AshForecastItem['direction']['value'],
    },
    distance: {
      type: (distance?.attr('type') ?? '') as AshForecastItem['distance']['type'],
      unit: 'km',
      value: trimmedText(distance),
    },
    ...(remark !== undefined ? { remake: remark } : {}),
    cities: (item.child('Areas')?.all('Area') ?? []).map((area) => ({
      code: trimmedText(area.child('Code')),
      name: trimmedText(area.child('Name')),
    })),
  };
}

/** `+31.5660+130.6800/+31.5600+130.6912/…` → [[31.566, 130.68], [31.56, 130.6912], …]. */
function parsePolygon(text: string): [number, number][] {
  const points: [number, number][] = [];
  for (const point of text.trim().split('/')) {
    const match = /^([+-]\d+(?:\.\d+)?)([+-]\d+(?:\.\d+)?)/.exec(point);
    if (match) points.push([Number(match[1]), Number(match[2])]);
  }
  return points;
}
