/** Pieces of JMA XML shared by the scenario telegrams: escaping, times, the Control and Head blocks. */

const JST_OFFSET_MS = 9 * 3_600_000;

export function escapeXml(text: string): string {
  return text.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);
}

/** `2024-04-17T23:14:59+09:00` (JST, to the second). */
export function jst(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000 + JST_OFFSET_MS).toISOString().slice(0, 19) + '+09:00';
}

/** `2024-04-17T14:14:59Z` (UTC, to the second), as Control/DateTime is written. */
export function utc(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19) + 'Z';
}

/** JMA's EventID: the origin time in JST, `yyyyMMddHHmmss`. */
export function eventIdOf(originMs: number): string {
  return jst(originMs).slice(0, 19).replace(/[-T:]/g, '');
}

/** `２３日１４時０６分` style: day, hour and minute in JST, full-width digits. */
export function jstDayTime(ms: number): string {
  const t = jst(ms);
  return fullWidth(`${t.slice(8, 10)}日${t.slice(11, 13)}時${t.slice(14, 16)}分`);
}

export function fullWidth(text: string): string {
  return text.replace(/[0-9.]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));
}

/** The hypocentre point: `+35.7+139.7-40000/` and its description. */
export function coordinate(latitude: number, longitude: number, depthKm: number): string {
  const sign = (n: number) => (n < 0 ? '-' : '+');
  const lat = Math.abs(latitude).toFixed(1);
  const lon = Math.abs(longitude).toFixed(1);
  const depth = Math.round(depthKm);
  const ns = latitude < 0 ? '南緯' : '北緯';
  const ew = longitude < 0 ? '西経' : '東経';
  const depthText = depth === 0 ? 'ごく浅い' : `深さ\u3000${fullWidth(String(depth))}ｋｍ`;
  const description = `${ns}${fullWidth(lat)}度\u3000${ew}${fullWidth(lon)}度\u3000${depthText}`;
  return (
    `<jmx_eb:Coordinate description="${description}">` +
    `${sign(latitude)}${lat}${sign(longitude)}${lon}-${depth * 1000}/</jmx_eb:Coordinate>`
  );
}

export function magnitude(value: number): string {
  const m = value.toFixed(1);
  return `<jmx_eb:Magnitude type="Mj" description="Ｍ${fullWidth(m)}">${m}</jmx_eb:Magnitude>`;
}

export interface Heading {
  controlTitle: string;
  headTitle: string;
  /** 訓練 marks a telegram as test (docs/telegrams.md, head.test); 通常 otherwise. */
  status: '通常' | '訓練';
  editorialOffice: string;
  reportMs: number;
  targetMs: number;
  eventId: string;
  serial: string;
  infoKind: string;
  infoKindVersion: string;
  headline: string;
  /** Headline/Information elements, already written. */
  information?: string;
}

const ROOT = '<Report xmlns="http://xml.kishou.go.jp/jmaxml1/" xmlns:jmx="http://xml.kishou.go.jp/jmaxml1/">';
const BODY =
  '<Body xmlns="http://xml.kishou.go.jp/jmaxml1/body/seismology1/" ' +
  'xmlns:jmx_eb="http://xml.kishou.go.jp/jmaxml1/elementBasis1/">';

/** A whole report: Control, Head and the body's content. */
export function report(h: Heading, body: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `${ROOT}\n` +
    `<Control><Title>${h.controlTitle}</Title><DateTime>${utc(h.reportMs)}</DateTime>` +
    `<Status>${h.status}</Status><EditorialOffice>${h.editorialOffice}</EditorialOffice>` +
    '<PublishingOffice>気象庁</PublishingOffice></Control>\n' +
    '<Head xmlns="http://xml.kishou.go.jp/jmaxml1/informationBasis1/">' +
    `<Title>${h.headTitle}</Title><ReportDateTime>${jst(h.reportMs)}</ReportDateTime>` +
    `<TargetDateTime>${jst(h.targetMs)}</TargetDateTime><EventID>${h.eventId}</EventID>` +
    `<InfoType>発表</InfoType><Serial>${h.serial}</Serial><InfoKind>${h.infoKind}</InfoKind>` +
    `<InfoKindVersion>${h.infoKindVersion}</InfoKindVersion>` +
    `<Headline><Text>${escapeXml(h.headline)}</Text>${h.information ?? ''}</Headline></Head>\n` +
    `${BODY}${body}</Body>\n</Report>\n`
  );
}
