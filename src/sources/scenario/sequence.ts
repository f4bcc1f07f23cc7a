import { classRank, type IntensityClass, type Source } from './attenuation.ts';
import { coordinate, eventIdOf, jst, jstDayTime, magnitude, report, type Heading } from './jma-xml.ts';
import {
  areaIntensities,
  citiesOf,
  eewPrefectureName,
  epicentreArea,
  prefectureName,
  tsunamiAreasByDistance,
  type AreaIntensity,
} from './model.ts';

export interface ScenarioParams extends Source {
  /** 通常 instead of 訓練: only for development installations (docs/sources.md). */
  asReal: boolean;
}

/** One telegram of a scenario: its XML and when it is due, ms after the first one. */
export interface ScenarioTelegram {
  type: string;
  offsetMs: number;
  xml: string;
}

export interface Scenario {
  eventId: string;
  /** As the reports carry it: to the minute (the EEWs and the EventID have its seconds). */
  originTime: string;
  telegrams: ScenarioTelegram[];
}

/**
 * Seconds after the origin time of each EEW report, and how far its estimate is from the final one
 * (magnitude, epicentre in degrees): JMA's first report comes a few seconds after detection with a
 * rough estimate that later reports refine.
 */
const EEW_REPORTS = [
  { at: 5, dm: -0.9, dll: 0.3 },
  { at: 7, dm: -0.5, dll: 0.2 },
  { at: 10, dm: -0.3, dll: 0.1 },
  { at: 15, dm: -0.1, dll: 0.1 },
  { at: 30, dm: 0, dll: 0 },
];
/** Seconds after the origin of the intensity flash, the tsunami forecast, the hypocentre report and the detailed report. */
const FLASH_AT = 90;
const TSUNAMI_AT = 180;
const HYPOCENTRE_AT = 190;
const DETAIL_AT = 300;
/** S waves, km/s: when the strong motion reaches an area. */
const S_WAVE_KM_S = 3.5;
const FINAL_EEW_NOTE = 'この情報をもって、緊急地震速報：最終報とします。';

/**
 * The telegrams JMA would issue for an earthquake at `params`, first one at `startMs` (the origin is
 * five seconds before it): EEW reports (VXSE45 and VXSE44 each time, VXSE43 when the forecast reaches
 * 5弱), VXSE51, VTSE41 for a large shallow event under the sea, VXSE52 and VXSE53. At `speed` X a
 * telegram due `s` seconds after the first is ingested s / X seconds after it, and it is dated then:
 * no telegram carries a report time later than the moment it is stored (docs/sources.md).
 */
export function earthquakeScenario(params: ScenarioParams, startMs: number, speed = 1): Scenario {
  const originMs = Math.floor((startMs - EEW_REPORTS[0]!.at * 1000) / 1000) * 1000;
  const eventId = eventIdOf(originMs);
  const status: Heading['status'] = params.asReal ? '通常' : '訓練';
  const epicentre = epicentreArea(params.latitude, params.longitude);
  const first = EEW_REPORTS[0]!.at;
  /** When the telegram due `seconds` after the origin is issued, hence dated. */
  const at = (seconds: number) => originMs + first * 1000 + ((seconds - first) * 1000) / speed;
  const telegrams: ScenarioTelegram[] = [];
  const push = (type: string, seconds: number, xml: string) =>
    telegrams.push({ type, offsetMs: (seconds - first) * 1000, xml });

  let warnedAreas = new Set<string>();
  let warningSerial = 0;
  EEW_REPORTS.forEach((step, i) => {
    const estimate: Source = {
      latitude: params.latitude + step.dll,
      longitude: params.longitude - step.dll,
      depthKm: Math.max(10, Math.round(params.depthKm / 10) * 10),
      magnitude: Math.max(3, Math.round((params.magnitude + step.dm) * 10) / 10),
    };
    const areas = areaIntensities(estimate).filter((a) => a.eewPrefCode !== '');
    // Warned: areas of forecast 4 or more once the forecast reaches 5弱; a warning is never withdrawn.
    const warnedNow =
      classRank(areas[0]?.intensity ?? '0') >= classRank('5-')
        ? areas.filter((a) => classRank(a.intensity) >= classRank('4')).map((a) => a.code)
        : [];
    const eew: EewReport = {
      estimate,
      epicentre,
      eventId,
      status,
      serial: i + 1,
      originMs,
      reportMs: at(step.at),
      last: i === EEW_REPORTS.length - 1,
      areas,
      warned: new Set([...warnedAreas, ...warnedNow]),
      lastWarned: warnedAreas,
    };
    push('VXSE45', step.at, eewXml(eew, 'VXSE45'));
    push('VXSE44', step.at, eewXml(eew, 'VXSE44'));
    if ([...eew.warned].some((code) => !warnedAreas.has(code))) {
      warningSerial++;
      push('VXSE43', step.at, eewXml({ ...eew, serial: warningSerial, last: false }, 'VXSE43'));
      warnedAreas = new Set([...warnedAreas, ...eew.warned]);
    }
  });

  const areas = areaIntensities(params);
  const common = { params, epicentre, eventId, status, originMs, areas };
  push('VXSE51', FLASH_AT, flashXml(common, at(FLASH_AT)));
  const tsunami = params.magnitude >= 6.5 && params.depthKm <= 60 && epicentre.sea;
  if (tsunami) push('VTSE41', TSUNAMI_AT, tsunamiXml(common, at(TSUNAMI_AT)));
  push('VXSE52', HYPOCENTRE_AT, hypocentreXml(common, at(HYPOCENTRE_AT), tsunami));
  push('VXSE53', DETAIL_AT, detailXml(common, at(DETAIL_AT), tsunami));
  // The origin time as the earthquake reports and /v2/gd/earthquake give it: JMA's reports carry it
  // to the minute; only the early warnings (and the EventID) carry its seconds.
  return { eventId, originTime: jst(minute(originMs)), telegrams };
}

interface EewReport {
  estimate: Source;
  epicentre: { code: string; name: string; sea: boolean };
  eventId: string;
  status: Heading['status'];
  serial: number;
  originMs: number;
  reportMs: number;
  last: boolean;
  areas: AreaIntensity[];
  /** Areas under warning in this report, and before it. */
  warned: Set<string>;
  lastWarned: Set<string>;
}

const EEW_TITLES: Record<string, string> = {
  VXSE43: '緊急地震速報（警報）',
  VXSE44: '緊急地震速報（予報）',
  VXSE45: '緊急地震速報（地震動予報）',
};

const eewKind = (code: string, name: string) => `<Kind><Name>${name}</Name><Code>${code}</Code></Kind>`;
/** The long-period ground motion class an EEW forecasts with an intensity. */
const eewLg = (c: IntensityClass) =>
  classRank(c) >= classRank('6-') ? '2' : classRank(c) >= classRank('5-') ? '1' : '0';
const eewRange = (tag: string, v: string) => `<${tag}><From>${v}</From><To>${v}</To></${tag}>`;

/** The Head's Information of a warning: its prefectures, then its areas. */
function eewInformation(r: EewReport, warnedAreas: AreaIntensity[], warnedPrefs: string[]): string {
  const warningKind = eewKind('31', '緊急地震速報（警報）');
  const was = r.lastWarned.size > 0;
  const lastKind = `<LastKind><Name>${was ? '緊急地震速報（警報）' : 'なし'}</Name><Code>${was ? '31' : '00'}</Code></LastKind>`;
  return (
    `<Information type="緊急地震速報（府県予報区）"><Item>${warningKind}${lastKind}` +
    `<Areas codeType="緊急地震速報／府県予報区">${warnedPrefs
      .map((p) => `<Area><Name>${eewPrefectureName.get(p)}</Name><Code>${p}</Code></Area>`)
      .join('')}</Areas></Item></Information>` +
    `<Information type="緊急地震速報（細分区域）"><Item>${warningKind}${lastKind}` +
    `<Areas codeType="地震情報／細分区域">${warnedAreas
      .map((a) => `<Area><Name>${a.name}</Name><Code>${a.code}</Code></Area>`)
      .join('')}</Areas></Item></Information>`
  );
}

/** One area of an EEW's intensity forecast: warned or not, and its arrival time or that it has arrived. */
function eewForecastArea(r: EewReport, a: AreaIntensity, withLg: boolean): string {
  const arrivalMs = r.originMs + (a.distanceKm / S_WAVE_KM_S) * 1000;
  const arrived = arrivalMs <= r.reportMs;
  const isWarned = r.warned.has(a.code);
  const kindCode = `${isWarned ? '1' : '0'}${arrived ? '1' : '0'}`;
  return (
    `<Pref><Name>${eewPrefectureName.get(a.eewPrefCode)}</Name><Code>${a.eewPrefCode}</Code>` +
    `<Area><Name>${a.name}</Name><Code>${a.code}</Code><Category>` +
    eewKind(kindCode, isWarned ? '緊急地震速報（警報）' : '緊急地震速報（予報）') +
    `</Category>${eewRange('ForecastInt', a.intensity)}${withLg ? eewRange('ForecastLgInt', eewLg(a.intensity)) : ''}` +
    (arrived
      ? '<Condition>既に主要動到達と推測</Condition>'
      : `<ArrivalTime>${jst(arrivalMs)}</ArrivalTime>`) +
    '</Area></Pref>'
  );
}

function eewXml(r: EewReport, type: 'VXSE43' | 'VXSE44' | 'VXSE45'): string {
  const title = EEW_TITLES[type]!;
  const warned = r.warned;
  // The 予報 lists areas of intensity 4 or more, the 地震動予報 of 3 or more; the 警報 its warned areas.
  const floor = type === 'VXSE45' ? '3' : '4';
  const listed = r.areas.filter((a) =>
    type === 'VXSE43' ? warned.has(a.code) : classRank(a.intensity) >= classRank(floor),
  );
  const max = listed[0]?.intensity ?? r.areas[0]?.intensity ?? '0';
  const warnedAreas = r.areas.filter((a) => warned.has(a.code));
  const warnedPrefs = [...new Set(warnedAreas.map((a) => a.eewPrefCode))];
  const information =
    type !== 'VXSE44' && warnedAreas.length > 0 ? eewInformation(r, warnedAreas, warnedPrefs) : '';
  const headline =
    type === 'VXSE44'
      ? ''
      : warnedPrefs.length > 0
        ? `${r.epicentre.name}で地震\u3000${warnedPrefs.map((p) => eewPrefectureName.get(p)).join('\u3000')}で強い揺れ`
        : `${r.epicentre.name}で地震`;
  const withLg = type !== 'VXSE44';
  const areaXml = listed.map((a) => eewForecastArea(r, a, withLg)).join('');
  const intensity =
    listed.length === 0
      ? ''
      : '<Intensity><Forecast><CodeDefine><Type xpath="Pref/Code">緊急地震速報／府県予報区</Type>' +
        '<Type xpath="Pref/Area/Code">地震情報／細分区域</Type>' +
        '<Type xpath="Pref/Area/Category/Kind/Code">緊急地震速報</Type></CodeDefine>' +
        `${eewRange('ForecastInt', max)}${withLg ? eewRange('ForecastLgInt', eewLg(max)) : ''}` +
        `<Appendix><MaxIntChange>${r.serial === 1 ? 0 : 1}</MaxIntChange>${withLg ? '<MaxLgIntChange>0</MaxLgIntChange>' : ''}` +
        `<MaxIntChangeReason>${r.serial === 1 ? 0 : 1}</MaxIntChangeReason></Appendix>${areaXml}</Forecast></Intensity>`;
  const e = r.estimate;
  const rank = r.last ? '5' : String(Math.min(4, r.serial + 1));
  const body =
    `<Earthquake><OriginTime>${jst(r.originMs)}</OriginTime><ArrivalTime>${jst(r.originMs + 3000)}</ArrivalTime>` +
    `<Hypocenter><Area><Name>${r.epicentre.name}</Name><Code type="震央地名">${r.epicentre.code}</Code>` +
    `${coordinate(e.latitude, e.longitude, e.depthKm)}<LandOrSea>${r.epicentre.sea ? '海域' : '内陸'}</LandOrSea></Area>` +
    `<Accuracy><Epicenter rank="${rank}" rank2="${Math.min(4, Number(rank))}">NaN</Epicenter><Depth rank="${rank}">NaN</Depth>` +
    `<MagnitudeCalculation rank="${rank}">NaN</MagnitudeCalculation>` +
    `<NumberOfMagnitudeCalculation>${Math.min(5, r.serial)}</NumberOfMagnitudeCalculation></Accuracy></Hypocenter>` +
    `${magnitude(e.magnitude)}</Earthquake>${intensity}` +
    (type !== 'VXSE44' && warnedAreas.length > 0
      ? '<Comments><WarningComment codeType="固定付加文"><Text>強い揺れに警戒してください。</Text><Code>0201</Code></WarningComment></Comments>'
      : '') +
    (r.last && type !== 'VXSE43' ? `<NextAdvisory>${FINAL_EEW_NOTE}</NextAdvisory>` : '');
  return report(
    {
      controlTitle: title,
      headTitle: title,
      status: r.status,
      editorialOffice: '気象庁本庁',
      reportMs: r.reportMs,
      targetMs: r.reportMs,
      eventId: r.eventId,
      serial: String(r.serial),
      infoKind: '緊急地震速報',
      infoKindVersion: type === 'VXSE44' ? '1.0_0' : '1.2_0',
      headline,
      information,
    },
    body,
  );
}

interface Common {
  params: ScenarioParams;
  epicentre: { code: string; name: string; sea: boolean };
  eventId: string;
  status: Heading['status'];
  originMs: number;
  /** Areas of intensity 1 or more, strongest first. */
  areas: AreaIntensity[];
}

/** JMA writes the times of VXSE51/52/53 to the minute. */
const minute = (ms: number) => Math.floor(ms / 60_000) * 60_000;

function earthquakeXml(c: Common): string {
  const p = c.params;
  return (
    `<Earthquake><OriginTime>${jst(minute(c.originMs))}</OriginTime><ArrivalTime>${jst(minute(c.originMs))}</ArrivalTime>` +
    `<Hypocenter><Area><Name>${c.epicentre.name}</Name><Code type="震央地名">${c.epicentre.code}</Code>` +
    `${coordinate(p.latitude, p.longitude, p.depthKm)}</Area></Hypocenter>${magnitude(p.magnitude)}</Earthquake>`
  );
}

/** The fixed comment (固定付加文) on tsunami: issued, none, or (intensity flash) information to follow. */
function forecastComment(tsunami: boolean | 'later'): string {
  const [text, code] =
    tsunami === 'later'
      ? ['今後の情報に注意してください。', '0217']
      : tsunami
        ? ['津波警報等（大津波警報・津波警報あるいは津波注意報）を発表しています。', '0211']
        : ['この地震による津波の心配はありません。', '0215'];
  return `<ForecastComment codeType="固定付加文"><Text>${text}</Text><Code>${code}</Code></ForecastComment>`;
}

function heading(c: Common, type: string, reportMs: number, headline: string, information = ''): Heading {
  const titles: Record<string, [string, string, string]> = {
    VXSE51: ['震度速報', '震度速報', '震度速報'],
    VXSE52: ['震源に関する情報', '震源に関する情報', '震源速報'],
    VXSE53: ['震源・震度に関する情報', '震源・震度情報', '地震情報'],
  };
  const [controlTitle, headTitle, infoKind] = titles[type]!;
  return {
    controlTitle,
    headTitle,
    status: c.status,
    editorialOffice: '気象庁本庁',
    reportMs: minute(reportMs),
    targetMs: type === 'VXSE51' ? minute(c.originMs) : minute(reportMs),
    eventId: c.eventId,
    serial: type === 'VXSE53' ? '1' : '',
    infoKind,
    infoKindVersion: '1.0_1',
    headline,
    information,
  };
}

/** Areas grouped by prefecture (code order), each level's maximum first. */
function byPrefecture(areas: AreaIntensity[]): [string, AreaIntensity[]][] {
  const out = new Map<string, AreaIntensity[]>();
  for (const a of areas) out.set(a.prefCode, [...(out.get(a.prefCode) ?? []), a]);
  return [...out].sort(([a], [b]) => (a < b ? -1 : 1));
}

function headlineInformation(
  type: string,
  codeType: string,
  entries: { code: string; name: string; intensity: IntensityClass }[],
): string {
  const groups = new Map<IntensityClass, typeof entries>();
  for (const e of entries) groups.set(e.intensity, [...(groups.get(e.intensity) ?? []), e]);
  const items = [...groups]
    .sort(([a], [b]) => classRank(b) - classRank(a))
    .map(
      ([cls, list]) =>
        `<Item><Kind><Name>${intensityName(cls)}</Name></Kind><Areas codeType="${codeType}">` +
        list.map((e) => `<Area><Name>${e.name}</Name><Code>${e.code}</Code></Area>`).join('') +
        '</Areas></Item>',
    )
    .join('');
  return `<Information type="${type}">${items}</Information>`;
}

function intensityName(c: IntensityClass): string {
  const names: Record<string, string> = {
    '5-': '震度５弱',
    '5+': '震度５強',
    '6-': '震度６弱',
    '6+': '震度６強',
  };
  return names[c] ?? `震度${String.fromCharCode(c.charCodeAt(0) + 0xfee0)}`;
}

function flashXml(c: Common, reportMs: number): string {
  const areas = c.areas.filter((a) => classRank(a.intensity) >= classRank('3'));
  const headline = `${jstDayTime(c.originMs)}ころ、地震による強い揺れを感じました。震度３以上が観測された地域をお知らせします。`;
  const observation =
    '<Intensity><Observation><CodeDefine><Type xpath="Pref/Code">地震情報／都道府県等</Type>' +
    '<Type xpath="Pref/Area/Code">地震情報／細分区域</Type></CodeDefine>' +
    `<MaxInt>${areas[0]?.intensity ?? '3'}</MaxInt>` +
    byPrefecture(areas)
      .map(
        ([pref, list]) =>
          `<Pref><Name>${prefectureName.get(pref)}</Name><Code>${pref}</Code><MaxInt>${list[0]!.intensity}</MaxInt>` +
          list
            .map(
              (a) =>
                `<Area><Name>${a.name}</Name><Code>${a.code}</Code><MaxInt>${a.intensity}</MaxInt></Area>`,
            )
            .join('') +
          '</Pref>',
      )
      .join('') +
    '</Observation></Intensity>';
  return report(
    heading(
      c,
      'VXSE51',
      reportMs,
      headline,
      areas.length > 0 ? headlineInformation('震度速報', '地震情報／細分区域', areas) : '',
    ),
    `${observation}<Comments>${forecastComment('later')}</Comments>`,
  );
}

function hypocentreXml(c: Common, reportMs: number, tsunami: boolean): string {
  const headline = `${jstDayTime(c.originMs)}ころ、地震がありました。`;
  return report(
    heading(c, 'VXSE52', reportMs, headline),
    `${earthquakeXml(c)}<Comments>${forecastComment(tsunami)}</Comments>`,
  );
}

function detailXml(c: Common, reportMs: number, tsunami: boolean): string {
  const headline = `${jstDayTime(c.originMs)}ころ、地震がありました。`;
  const areas = c.areas;
  const cityEntries: { code: string; name: string; intensity: IntensityClass }[] = [];
  const prefs = byPrefecture(areas)
    .map(([pref, list]) => {
      const areaXml = list
        .map((a) => {
          const cities = citiesOf(a.code).filter((city) => city.stations.length > 0);
          for (const city of cities)
            if (classRank(a.intensity) >= classRank('3'))
              cityEntries.push({ ...city, intensity: a.intensity });
          const cityXml = cities
            .map(
              (city) =>
                `<City><Name>${city.name}</Name><Code>${city.code}</Code><MaxInt>${a.intensity}</MaxInt>` +
                city.stations
                  .map(
                    ([code, name]) =>
                      `<IntensityStation><Name>${name}</Name><Code>${code}</Code><Int>${a.intensity}</Int></IntensityStation>`,
                  )
                  .join('') +
                '</City>',
            )
            .join('');
          return `<Area><Name>${a.name}</Name><Code>${a.code}</Code><MaxInt>${a.intensity}</MaxInt>${cityXml}</Area>`;
        })
        .join('');
      return `<Pref><Name>${prefectureName.get(pref)}</Name><Code>${pref}</Code><MaxInt>${list[0]!.intensity}</MaxInt>${areaXml}</Pref>`;
    })
    .join('');
  const strong = areas.filter((a) => classRank(a.intensity) >= classRank('3'));
  const information =
    strong.length > 0
      ? headlineInformation('震源・震度に関する情報（細分区域）', '地震情報／細分区域', strong) +
        headlineInformation(
          '震源・震度に関する情報（市町村等）',
          '気象・地震・火山情報／市町村等',
          cityEntries,
        )
      : '';
  const intensity =
    areas.length === 0
      ? ''
      : '<Intensity><Observation><CodeDefine><Type xpath="Pref/Code">地震情報／都道府県等</Type>' +
        '<Type xpath="Pref/Area/Code">地震情報／細分区域</Type><Type xpath="Pref/Area/City/Code">気象・地震・火山情報／市町村等</Type>' +
        '<Type xpath="Pref/Area/City/IntensityStation/Code">震度観測点</Type></CodeDefine>' +
        `<MaxInt>${areas[0]!.intensity}</MaxInt>${prefs}</Observation></Intensity>`;
  return report(
    heading(c, 'VXSE53', reportMs, headline, information),
    `${earthquakeXml(c)}${intensity}<Comments>${forecastComment(tsunami)}</Comments>`,
  );
}

/** 大津波警報, 津波警報, 津波注意報 or 津波予報 by magnitude and distance (a rule of thumb, not JMA's database). */
function tsunamiGrade(magnitudeValue: number, distanceKm: number) {
  if (distanceKm <= 200 && magnitudeValue >= 8)
    return { code: '53', name: '大津波警報：発表', height: ['巨大', 'NaN', '不明'] };
  if (distanceKm <= 200 && magnitudeValue >= 7.5)
    return { code: '51', name: '津波警報', height: ['３ｍ', '3', ''] };
  if (distanceKm <= 300) return { code: '62', name: '津波注意報', height: ['１ｍ', '1', ''] };
  if (distanceKm <= 800)
    return { code: '71', name: '津波予報（若干の海面変動）', height: ['０．２ｍ未満', '0.2', ''] };
  return null;
}

function tsunamiXml(c: Common, reportMs: number): string {
  const items = tsunamiAreasByDistance(c.params).flatMap((area) => {
    const grade = tsunamiGrade(c.params.magnitude, area.distanceKm);
    if (!grade) return [];
    const [description, value, condition] = grade.height as [string, string, string];
    const height = `<jmx_eb:TsunamiHeight type="津波の高さ" unit="m"${condition ? ` condition="${condition}"` : ''} description="${description}">${value}</jmx_eb:TsunamiHeight>`;
    // Tsunami waves cross the shelf at roughly 200 km/h: the first one is due that long after the origin.
    const arrivalMs = minute(c.originMs + Math.max(10, (area.distanceKm / 200) * 60) * 60_000);
    const first =
      grade.code === '71' ? '' : `<FirstHeight><ArrivalTime>${jst(arrivalMs)}</ArrivalTime></FirstHeight>`;
    return [
      `<Item><Area><Name>${area.name}</Name><Code>${area.code}</Code></Area><Category><Kind><Name>${grade.name}</Name><Code>${grade.code}</Code></Kind>` +
        `<LastKind><Name>津波なし</Name><Code>00</Code></LastKind></Category>${first}<MaxHeight>${height}</MaxHeight></Item>`,
    ];
  });
  const p = c.params;
  const headTitle =
    p.magnitude >= 8
      ? '大津波警報・津波警報・津波注意報・津波予報'
      : p.magnitude >= 7.5
        ? '津波警報・津波注意報・津波予報'
        : '津波注意報・津波予報';
  const headline =
    p.magnitude >= 7.5
      ? '津波警報等を発表しました。ただちに避難してください。'
      : '津波注意報を発表しました。海の中や海岸付近は危険です。';
  const heading: Heading = {
    controlTitle: '津波警報・注意報・予報a',
    headTitle,
    status: c.status,
    editorialOffice: '気象庁本庁',
    reportMs: minute(reportMs),
    targetMs: minute(reportMs),
    eventId: c.eventId,
    serial: '',
    infoKind: '津波警報・注意報・予報',
    infoKindVersion: '1.0_1',
    headline,
  };
  const body =
    '<Tsunami><Forecast><CodeDefine><Type xpath="Item/Area/Code">津波予報区</Type>' +
    '<Type xpath="Item/Category/Kind/Code">警報等情報要素／津波警報・注意報・予報</Type>' +
    '<Type xpath="Item/Category/LastKind/Code">警報等情報要素／津波警報・注意報・予報</Type></CodeDefine>' +
    `${items.join('')}</Forecast></Tsunami>${earthquakeXml(c)}`;
  return report(heading, body);
}
