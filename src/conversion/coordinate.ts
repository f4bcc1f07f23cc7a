import type { Components } from '@dmdata/telegram-json-types';
import type { XmlElement } from './xml-element.ts';

/** One ISO 6709 point as JMA writes it: `+37.7+141.8-10000/`, `+4232.63+14050.35+733/`, `+3542+13945/`. */
export interface Iso6709Point {
  latitude: { text: string; value: string };
  longitude: { text: string; value: string };
  /** Height in metres as written (sign kept, `+` dropped); undefined when the point has none. */
  height?: string;
}

const POINT = /^([+-])(\d+(?:\.\d+)?)([+-])(\d+(?:\.\d+)?)(?:([+-]\d+(?:\.\d+)?))?\/?$/;

/** Parses one ISO 6709 point; undefined when the text is empty or not a point. */
export function parseIso6709(text: string): Iso6709Point | undefined {
  const match = POINT.exec(text.trim());
  if (!match) return undefined;
  const [, latSign, lat, lonSign, lon, height] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string?,
  ];
  const latitude = angle(latSign, lat, 2, 'N', 'S');
  const longitude = angle(lonSign, lon, 3, 'E', 'W');
  if (!latitude || !longitude) return undefined;
  return { latitude, longitude, ...(height !== undefined ? { height: height.replace(/^\+/, '') } : {}) };
}

/**
 * One angle in the forms JMA uses: degrees (`37.7`), degrees and minutes (`4232.63`, `12405`), or
 * degrees, minutes and seconds (`354512`), told apart by the number of integer digits.
 * Text keeps the written precision (`37.7˚N`, `42˚32.63'N`, `124˚05'E`); value is decimal degrees
 * with four decimals.
 */
function angle(sign: string, written: string, degreeDigits: number, positive: string, negative: string) {
  const [whole = '', fraction] = written.split('.');
  const hemisphere = sign === '-' ? negative : positive;
  const suffix = fraction !== undefined ? `.${fraction}` : '';
  let degrees: number;
  let text: string;
  if (whole.length <= degreeDigits) {
    degrees = Number(written);
    text = `${String(Number(whole))}${suffix}˚${hemisphere}`;
  } else if (whole.length <= degreeDigits + 2) {
    const deg = whole.slice(0, whole.length - 2);
    const min = whole.slice(-2) + suffix;
    degrees = Number(deg) + Number(min) / 60;
    text = `${String(Number(deg))}˚${min}'${hemisphere}`;
  } else if (whole.length <= degreeDigits + 4) {
    const deg = whole.slice(0, whole.length - 4);
    const min = whole.slice(-4, -2);
    const sec = whole.slice(-2) + suffix;
    degrees = Number(deg) + Number(min) / 60 + Number(sec) / 3600;
    text = `${String(Number(deg))}˚${min}'${sec}"${hemisphere}`;
  } else return undefined;
  if (!Number.isFinite(degrees)) return undefined;
  const signed = sign === '-' && degrees !== 0 ? -degrees : degrees;
  return { text, value: signed.toFixed(4) };
}

/**
 * The Coordinate component of a `jmx_eb:Coordinate` (or any ISO 6709 element): latitude, longitude,
 * height (`高さ`, metres) when written, `geodeticSystem` from the `datum` attribute when present;
 * `{condition: '不明'}` when the element holds no point.
 */
export function convertCoordinate(
  element: XmlElement | undefined,
): Components.Coordinate<'日本測地系' | undefined> {
  const point = element ? parseIso6709(element.text) : undefined;
  if (!point) return { condition: '不明' };
  const datum = element?.attr('datum');
  return {
    latitude: point.latitude,
    longitude: point.longitude,
    ...(point.height !== undefined
      ? { height: { type: '高さ' as const, unit: 'm' as const, value: point.height } }
      : {}),
    ...(datum !== undefined ? { geodeticSystem: datum as '日本測地系' } : {}),
  };
}
