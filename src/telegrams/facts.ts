// What the delivery filters by place and strength read of a telegram (docs/realtime.md "Filters by
// place and strength"): extracted once while the telegram is prepared, as plain data that crosses
// the prepare workers' boundary and is stored with the telegram.
import type { XmlElement } from '../conversion/xml-element.ts';
import { SEISMIC_AREA_ROWS } from './seismic-areas.ts';

/** Intensities in increasing order (JMA 震度階級), as the filters and JMA XML write them. */
export const INTENSITIES = ['1', '2', '3', '4', '5-', '5+', '6-', '6+', '7'] as const;
export type Intensity = (typeof INTENSITIES)[number];

/** Which rules of the filters apply: `minIntensity` judges earthquake and early-warning telegrams. */
export type FactsKind = 'earthquake' | 'eew' | 'tsunami' | 'other';

export interface TelegramFacts {
  kind: FactsKind;
  /**
   * Every area code the telegram names (as written, in its own code table) and the prefecture
   * codes (JIS X 0401, two digits) those areas lie in; sorted, without repeats.
   */
  areas: string[];
  /** Earthquakes: the highest observed intensity; early warnings: the highest forecast one. */
  maxIntensity?: Intensity;
  /**
   * `kind:EventID` of earthquake, early-warning and tsunami telegrams, `other:TYPE:EventID` of the
   * other telegrams with an EventID: ingest joins the facts of the event's earlier telegrams to a
   * telegram's own, to every telegram of the first three kinds and to the cancellation (取消) of the
   * others (event-facts.ts).
   */
  event?: string;
}

const PREFECTURE_NAMES = [
  '北海道', '青森県', '岩手県', '宮城県', '秋田県', '山形県', '福島県', '茨城県', '栃木県', '群馬県',
  '埼玉県', '千葉県', '東京都', '神奈川県', '新潟県', '富山県', '石川県', '福井県', '山梨県', '長野県',
  '岐阜県', '静岡県', '愛知県', '三重県', '滋賀県', '京都府', '大阪府', '兵庫県', '奈良県', '和歌山県',
  '鳥取県', '島根県', '岡山県', '広島県', '山口県', '徳島県', '香川県', '愛媛県', '高知県', '福岡県',
  '佐賀県', '長崎県', '熊本県', '大分県', '宮崎県', '鹿児島県', '沖縄県',
]; // prettier-ignore

/** JIS X 0401 code of the prefecture a name starts with, or undefined. */
function prefectureOfName(name: string): string | undefined {
  const i = PREFECTURE_NAMES.findIndex((p) => name.startsWith(p));
  return i === -1 ? undefined : String(i + 1).padStart(2, '0');
}

const seismicAreaPrefecture = new Map(SEISMIC_AREA_ROWS.map((r) => [r.slice(0, 3), r.slice(3, 5)]));
const seismicAreaNamePrefecture = new Map(SEISMIC_AREA_ROWS.map((r) => [r.slice(5), r.slice(3, 5)]));

/**
 * Tsunami forecast areas (津波予報区) whose name starts with no prefecture's, and the prefectures
 * whose coast they are (JMA's 津波予報区 map); the others start with their prefecture's name.
 */
const TSUNAMI_AREA_PREFECTURES: Readonly<Record<string, readonly string[]>> = {
  '120': ['01'], // オホーツク海沿岸
  '202': ['02'], // 陸奥湾
  '312': ['12', '13', '14'], // 東京湾内湾
  '320': ['13'], // 伊豆諸島
  '321': ['13'], // 小笠原諸島
  '330': ['14'], // 相模湾・三浦半島
  '341': ['15'], // 佐渡
  '391': ['23', '24'], // 伊勢・三河湾
  '522': ['28'], // 淡路島南部
  '551': ['32'], // 隠岐
  '712': ['40', '41', '42', '43', '46'], // 有明・八代海
  '731': ['42'], // 壱岐・対馬
  '771': ['46'], // 種子島・屋久島地方
  '772': ['46'], // 奄美群島・トカラ列島
  '800': ['47'], // 沖縄本島地方
  '801': ['47'], // 大東島地方
  '802': ['47'], // 宮古島・八重山地方
};

const isIntensity = (s: string | undefined): s is Intensity =>
  s !== undefined && (INTENSITIES as readonly string[]).includes(s);
const rankOf = (s: Intensity) => INTENSITIES.indexOf(s);

/** The higher of two intensities (either may be absent). */
export function higherIntensity(a: Intensity | undefined, b: Intensity | undefined): Intensity | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return rankOf(a) >= rankOf(b) ? a : b;
}

/** Which rules apply to a data type: early warnings VXSE42–45, other VXSE/VZSE earthquake types, VTSE tsunami. */
export function factsKindOf(type: string): FactsKind {
  if (/^VXSE4[2-5]$/.test(type)) return 'eew';
  if (type.startsWith('VXSE') || type.startsWith('VZSE')) return 'earthquake';
  if (type.startsWith('VTSE')) return 'tsunami';
  return 'other';
}

const codeOf = (e: XmlElement) => e.child('Code')?.text.trim() || undefined;

/** Collects codes and the prefectures they lie in. */
class AreaSet {
  readonly codes = new Set<string>();
  add(code: string | undefined, ...prefectures: (string | undefined)[]): void {
    if (code === undefined) return;
    this.codes.add(code);
    for (const p of prefectures)
      if (p !== undefined && /^(0[1-9]|[1-3][0-9]|4[0-7])$/.test(p)) this.codes.add(p);
  }
  sorted(): string[] {
    return [...this.codes].sort();
  }
}

/** The facts of an XML telegram (pure: no I/O). */
export function extractFacts(type: string, report: XmlElement): TelegramFacts {
  const kind = factsKindOf(type);
  const body = report.child('Body');
  const areas = new AreaSet();
  let maxIntensity: Intensity | undefined;
  if (kind === 'earthquake') maxIntensity = earthquakeAreas(report, body, areas);
  else if (kind === 'eew') maxIntensity = eewAreas(report, body, areas);
  else if (kind === 'tsunami') tsunamiAreas(body, areas);
  else otherAreas(report, areas);
  // Several EventIDs (a tsunami of more than one earthquake) are separated by one space.
  const eventId = report.at('Head/EventID')?.text.trim().split(/\s+/).join(' ');
  // Keys in the order jsonb keeps them (shorter first): the record in memory is the one stored.
  return {
    kind,
    areas: areas.sorted(),
    ...(eventId ? { event: kind === 'other' ? `other:${type}:${eventId}` : `${kind}:${eventId}` } : {}),
    ...(maxIntensity !== undefined ? { maxIntensity } : {}),
  };
}

/**
 * Earthquake information: the prefectures, areas, cities and stations of the observed intensities
 * (each below its prefecture), the areas of the headline, and the epicentre. Returns the highest
 * observed intensity.
 */
function earthquakeAreas(report: XmlElement, body: XmlElement | undefined, areas: AreaSet) {
  const observation = body?.at('Intensity/Observation');
  for (const pref of observation?.all('Pref') ?? []) {
    const prefecture = codeOf(pref);
    areas.add(prefecture, prefecture);
    for (const area of pref.all('Area')) {
      areas.add(codeOf(area), prefecture);
      for (const city of area.all('City')) {
        areas.add(codeOf(city), prefecture);
        for (const station of city.all('IntensityStation')) areas.add(codeOf(station), prefecture);
      }
      // 長周期地震動に関する観測情報 (VXSE62) lists its stations under the area, with no city.
      for (const station of area.all('IntensityStation')) areas.add(codeOf(station), prefecture);
    }
  }
  headlineAreas(report, areas);
  epicentreArea(body, areas);
  const max = observation?.child('MaxInt')?.text.trim();
  return isIntensity(max) ? max : undefined;
}

/**
 * The prefecture of an epicentre (震央地名) on land: named like an earthquake area (北海道's are), or
 * starting with a prefecture's name; one at sea (its name has 沖, 灘, 湾…) lies in none.
 */
/** The epicentre (`Earthquake/Hypocenter/Area`, 震央地名), with its prefecture when on land. */
function epicentreArea(body: XmlElement | undefined, areas: AreaSet): void {
  const epicentre = body?.at('Earthquake/Hypocenter/Area');
  if (epicentre)
    areas.add(codeOf(epicentre), epicentrePrefecture(epicentre.child('Name')?.text.trim() ?? ''));
}

function epicentrePrefecture(name: string): string | undefined {
  const asArea = seismicAreaNamePrefecture.get(name);
  if (asArea) return asArea;
  return /[沖灘湾海峡]/.test(name) ? undefined : prefectureOfName(name);
}

/**
 * The areas of the headline's items: earthquake areas with their prefecture, an early warning's
 * 府県予報区 as written. An early warning's 地方予報区 (北陸…) are left out: the 府県予報区 and
 * areas beside them name the same places.
 */
function headlineAreas(report: XmlElement, areas: AreaSet): void {
  for (const info of report.at('Head/Headline')?.all('Information') ?? []) {
    for (const item of info.all('Item')) {
      const listed = item.child('Areas');
      if (listed?.attr('codeType') === '緊急地震速報／地方予報区') continue;
      for (const area of listed?.all('Area') ?? []) {
        const code = codeOf(area);
        areas.add(code, code && seismicAreaPrefecture.get(code));
      }
    }
  }
}

/**
 * Early warnings: the forecast areas (with their prefectures), the areas the headline warns (once
 * warned, an area stays in the headline of the later telegrams even when their forecast no longer
 * lists it) and the epicentre. Returns the highest forecast intensity.
 */
function eewAreas(report: XmlElement, body: XmlElement | undefined, areas: AreaSet): Intensity | undefined {
  headlineAreas(report, areas);
  // As earthquake information: a first report may forecast no area yet, and names its epicentre.
  epicentreArea(body, areas);
  const forecast = body?.at('Intensity/Forecast');
  for (const pref of forecast?.all('Pref') ?? []) {
    areas.add(codeOf(pref));
    for (const area of pref.all('Area')) {
      const code = codeOf(area);
      areas.add(code, code && seismicAreaPrefecture.get(code));
    }
  }
  // The forecast range's upper end, or its lower end when open (`over`) or unknown.
  const range = forecast?.child('ForecastInt');
  const from = range?.child('From')?.text.trim();
  const to = range?.child('To')?.text.trim();
  return higherIntensity(isIntensity(from) ? from : undefined, isIntensity(to) ? to : undefined);
}

/**
 * Tsunami: the areas (津波予報区) of the forecast, of the observations and of the estimations from
 * offshore observations (沖合の津波観測に関する情報), with the prefectures of their coasts.
 */
function tsunamiAreas(body: XmlElement | undefined, areas: AreaSet): void {
  for (const part of ['Forecast', 'Observation', 'Estimation']) {
    for (const item of body?.at(`Tsunami/${part}`)?.all('Item') ?? []) {
      const area = item.child('Area');
      if (!area) continue;
      const code = codeOf(area);
      const listed = code === undefined ? undefined : TSUNAMI_AREA_PREFECTURES[code];
      areas.add(code, ...(listed ?? [prefectureOfName(area.child('Name')?.text.trim() ?? '')]));
    }
  }
}

/**
 * Weather and every other telegram: the code of every `Area` element (warning areas, cities,
 * forecast regions…). A code of 6 or 7 digits (府県予報区, 一次細分区域, cities: JIS-based) lies in
 * the prefecture of its first two digits, except the regional ones (010xxx: 全国, 地方予報区).
 */
function otherAreas(report: XmlElement, areas: AreaSet): void {
  const visit = (e: XmlElement) => {
    if (e.name === 'Area') {
      const code = codeOf(e);
      const jisBased = code !== undefined && /^\d{6,7}$/.test(code) && !code.startsWith('010');
      areas.add(code, jisBased ? code.slice(0, 2) : undefined);
    }
    for (const c of e.children) visit(c);
  };
  for (const part of [report.child('Head'), report.child('Body')]) if (part) visit(part);
}
