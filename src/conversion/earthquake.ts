import type { Components } from '@dmdata/telegram-json-types';
import { convertCoordinate, parseIso6709 } from './coordinate.ts';
import type { XmlElement } from './xml-element.ts';

type Earthquake = Components.Earthquake;
type Hypocenter = Earthquake['hypocenter'];
type Depth = Hypocenter['depth'];
type Magnitude = Earthquake['magnitude'];

/**
 * The Earthquake component (docs/conversion.md, "Earthquake component") from a JMA `Earthquake`
 * element: origin and arrival times, hypocentre (area name and code, coordinate, depth, detailed
 * name, auxiliary position, source) and magnitude. Shared by the earthquake, EEW and tsunami schemas.
 */
export function convertEarthquake(earthquake: XmlElement): Earthquake {
  const area = earthquake.at('Hypocenter/Area');
  return {
    originTime: earthquake.textAt('OriginTime')?.trim() ?? '',
    arrivalTime: earthquake.textAt('ArrivalTime')?.trim() ?? '',
    hypocenter: convertHypocenter(area, earthquake.at('Hypocenter/Source')),
    magnitude: convertMagnitude(earthquake.child('Magnitude')),
  };
}

function convertHypocenter(area: XmlElement | undefined, source: XmlElement | undefined): Hypocenter {
  const coordinate = area?.child('Coordinate');
  const detailedCode = area?.textAt('DetailedCode')?.trim();
  const markCode = area?.textAt('MarkCode')?.trim();
  const hypocenter: Hypocenter = {
    code: area?.textAt('Code')?.trim() ?? '',
    name: area?.textAt('Name')?.trim() ?? '',
    coordinate: convertCoordinate(coordinate),
    depth: convertDepth(coordinate),
  };
  if (detailedCode)
    hypocenter.detailed = { code: detailedCode, name: area?.textAt('DetailedName')?.trim() ?? '' };
  if (markCode) {
    hypocenter.auxiliary = {
      text: area?.textAt('NameFromMark')?.trim() ?? '',
      code: markCode,
      name: markName(area?.textAt('NameFromMark')?.trim() ?? ''),
      direction: area?.textAt('Direction')?.trim() ?? '',
      // unit first: production's key order (every sample and real conversion that has one)
      distance: { unit: 'km', value: area?.textAt('Distance')?.trim() ?? '' },
    };
  }
  const sourceText = source?.text.trim();
  if (sourceText) hypocenter.source = sourceText as Hypocenter['source'];
  return hypocenter;
}

/** The mark's own name: `NameFromMark` is "<mark>の<direction><distance>ｋｍ付近". */
function markName(nameFromMark: string): string {
  const at = nameFromMark.lastIndexOf('の');
  return at === -1 ? nameFromMark : nameFromMark.slice(0, at);
}

/**
 * Depth from the coordinate's height (metres below sea level → km), with JMA's exceptional forms
 * taken from the description: ごく浅い (0 km), ７００ｋｍ以上 (700 km), and 不明 (no height).
 */
export function convertDepth(coordinate: XmlElement | undefined): Depth {
  const description = coordinate?.attr('description') ?? '';
  const height = coordinate ? parseIso6709(coordinate.text)?.height : undefined;
  if (description.includes('ごく浅い'))
    return { type: '深さ', unit: 'km', value: '0', condition: 'ごく浅い' };
  if (description.includes('７００ｋｍ以上')) {
    return { type: '深さ', unit: 'km', value: '700', condition: '７００ｋｍ以上' };
  }
  if (height === undefined) return { type: '深さ', unit: 'km', value: null, condition: '不明' };
  return { type: '深さ', unit: 'km', value: String(Math.round(Math.abs(Number(height)) / 1000)) };
}

/**
 * Magnitude: the number as written; NaN (unknown, or too large to determine early) becomes
 * `value: null` with the description (`Ｍ不明`, `Ｍ８を超える巨大地震`) as the condition.
 */
export function convertMagnitude(magnitude: XmlElement | undefined): Magnitude {
  const unit = (magnitude?.attr('type') ?? 'Mj') as Magnitude['unit'];
  const value = magnitude?.text.trim() ?? '';
  if (value === '' || value === 'NaN') {
    const condition = (magnitude?.attr('description') ?? 'Ｍ不明') as 'Ｍ不明' | 'Ｍ８を超える巨大地震';
    return { type: 'マグニチュード', value: null, unit, condition };
  }
  return { type: 'マグニチュード', value, unit };
}
