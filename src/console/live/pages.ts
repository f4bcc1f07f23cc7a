import { markup, type SafeHtml } from '../html.ts';
import { formatTime } from '../layout.ts';
import type { Lang } from '../i18n.ts';
import type { TelegramRecord } from '../../telegrams/record.ts';
import type { TelegramSummary } from '../../telegrams/store.ts';
import { decodedBody } from './documents.ts';
import { livePage } from '../live-frame.ts';
import { renderMap, stationClass } from './map.ts';
import { intensityName, INTENSITY_ORDER, liveMessages, type LiveText } from './messages.ts';
import { payloadOf, type Amends, type NotReal, type TelegramLine } from './payloads.ts';
import { EEW_IN_EFFECT_MS, type TimedEewBanner } from './eew-now.ts';
import { livePaths, paths } from '../paths.ts';
import type { AreaIntensity, QuakeView, StationIntensity } from './quake.ts';
import type { Hypocenter } from '../../gd/types.ts';

const telegramHref = (serial: number) => livePaths.telegram.replace(':serial', String(serial));
export const quakeHref = (eventId: string) =>
  livePaths.quake.replace(':eventId', encodeURIComponent(eventId));

/** A time of a telegram in Japan time to the second, the instant kept in `datetime`. */
const timeOf = (iso: string) =>
  markup`<time datetime="${iso}">${formatTime(new Date(iso), { seconds: true })}</time>`;

/** The words of a not-real telegram's mark (training or test), as the script also writes them. */
const notRealText = (notReal: NotReal, text: LiveText) =>
  notReal === 'training' ? text.notRealTraining : notReal === 'test' ? text.notRealTest : null;

/** The words of a cancellation's or correction's mark, as the script also writes them. */
const amendsText = (amends: Amends, text: LiveText) =>
  amends === 'cancelled' ? text.amendsCancelled : amends === 'corrected' ? text.amendsCorrected : null;

function telegramLine(t: TelegramLine, text: LiveText): SafeHtml {
  const mark = notRealText(t.notReal, text);
  const amends = amendsText(t.amends, text);
  return markup`<li class="telegram" data-serial="${t.serial}"><a href="${t.href}">${t.title}</a><span class="type">${t.type}</span>${amends ? markup`<span class="amends">${amends}</span>` : null}${mark ? markup`<span class="not-real">${mark}</span>` : null}<time class="muted" datetime="${t.receivedTime}">${formatTime(new Date(t.receivedTime), { seconds: true })}</time>${t.headline ? markup`<p class="headline">${t.headline}</p>` : null}</li>`;
}

function areaList(title: string, areas: AreaIntensity[], lang: Lang): SafeHtml | null {
  if (areas.length === 0) return null;
  const text = liveMessages[lang];
  return markup`<h3>${title}</h3>
<ul class="areas">${areas.map(
    (a) =>
      markup`<li data-code="${a.code}"><span class="chip ${stationClass(a.maxInt)}" aria-hidden="true"></span>${a.name} <span class="sr">${text.maxInt}</span> <strong>${intensityName(a.maxInt, lang)}</strong></li>`,
  )}</ul>`;
}

/**
 * The map's licence (CC BY 4.0) asks for its author to be credited beside it, and JMA's terms for
 * the station positions' source (docs/parameter.md "Sources").
 */
const mapCredit = (text: LiveText) =>
  markup`<p class="muted map-credit">${text.mapCredit} <a href="https://mapsvg.com/maps/japan">MapSVG</a>, <a href="https://creativecommons.org/licenses/by/4.0/">CC BY 4.0</a>. ${text.stationCredit}</p>`;

/** The intensity scale of the station symbols, weakest first, as JMA's scale reads. */
function legend(lang: Lang): SafeHtml {
  const text = liveMessages[lang];
  return markup`<ul class="legend" aria-label="${text.legend}">${[...INTENSITY_ORDER, '!5-'].map(
    (int) =>
      markup`<li><span class="chip ${stationClass(int)}" aria-hidden="true"></span>${int === '!5-' ? text.unreported : `${text.intensity}${lang === 'ja' ? '' : ' '}${intensityName(int, lang)}`}</li>`,
  )}</ul>`;
}

/** Unplaced stations listed on the page at most; the rest are counted (a report may name thousands). */
export const UNPLACED_SHOWN = 100;

/** Stations of the report whose position the station list does not give: collapsed, capped, counted. */
function unplacedList(stations: StationIntensity[], lang: Lang): SafeHtml | null {
  const unplaced = stations.filter((s) => s.point === null);
  if (unplaced.length === 0) return null;
  const text = liveMessages[lang];
  const more = unplaced.length - UNPLACED_SHOWN;
  return markup`<details id="unplaced"><summary>${text.unplacedStations} (${unplaced.length})</summary>
<ul class="areas" id="unplaced-stations">${unplaced
    .slice(0, UNPLACED_SHOWN)
    .map(
      (s) =>
        markup`<li data-code="${s.code}" data-int="${s.int}"><span class="chip ${stationClass(s.int)}" aria-hidden="true"></span>${s.name} <span class="sr">${text.maxInt}</span> <strong>${intensityName(s.int, lang)}</strong></li>`,
    )}</ul>${more > 0 ? markup`<p class="muted" id="unplaced-more">${more} ${text.unplacedMore}</p>` : null}</details>`;
}

/**
 * The depth as JMA states it: its conditions (ごく浅い, written with value 0; ７００ｋｍ以上, with
 * value 700; 不明) are words, never a figure.
 */
function depthText(depth: Hypocenter['depth'] | undefined, text: LiveText): string {
  if (depth?.condition === 'ごく浅い') return text.depthShallow;
  if (depth?.condition === '７００ｋｍ以上') return text.depthDeep;
  const value = depth?.value;
  return value === undefined || value === null ? text.unknown : `${value} km`;
}

/**
 * The event's maximum intensity. Without one: none observed for a distant earthquake (JMA's
 * 遠地地震に関する情報 comes only when no intensity of 1 or more was observed in Japan) or when a
 * 震源・震度に関する情報 (VXSE53) stands with no intensities (an early warning issued, nothing of 1
 * or more observed); unknown while no intensity report has come.
 */
function maxIntText(quake: QuakeView, lang: Lang): string {
  const text = liveMessages[lang];
  if (quake.event.maxInt) return intensityName(quake.event.maxInt, lang);
  if (quake.event.type === 'distant') return text.maxIntDistant;
  const reported = quake.telegrams.some(
    (t) => t.head.type === 'VXSE53' && t.xmlReport?.head.infoType !== '取消',
  );
  return reported ? text.maxIntNone : text.unknown;
}

/** The earthquake section: map, facts and area intensities (the live view replaces it in place). */
export function quakeSection(quake: QuakeView | null, lang: Lang, heading: string): SafeHtml {
  const text = liveMessages[lang];
  if (!quake) {
    return markup`<section id="quake" aria-labelledby="quake-heading"><h2 id="quake-heading">${heading}</h2>
<p>${text.noQuake}</p>${renderMap(null, [], text.mapLabel)}${mapCredit(text)}</section>`;
  }
  const { event } = quake;
  const hypo = event.hypocenter;
  return markup`<section id="quake" aria-labelledby="quake-heading" data-event-id="${event.eventId}"${quake.training ? markup` class="training" data-training="true"` : null}>
<h2 id="quake-heading">${heading}</h2>
${quake.training ? markup`<p class="training-mark" id="quake-training"><strong>${text.training}</strong> ${text.trainingNote}</p>` : null}
${renderMap(
  quake.latitude !== null && quake.longitude !== null
    ? { latitude: quake.latitude, longitude: quake.longitude, maxInt: event.maxInt }
    : null,
  quake.prefectures,
  text.mapLabel,
  quake.stations.flatMap((s) =>
    s.point ? [{ ...s, said: intensityName(s.int, lang), point: s.point }] : [],
  ),
)}${quake.stations.length > 0 ? legend(lang) : null}${mapCredit(text)}
<dl class="facts">
<dt>${text.hypocentre}</dt><dd id="quake-hypocentre">${hypo?.name ?? text.unknown}${quake.latitude !== null && quake.longitude !== null ? ` (${quake.latitude}, ${quake.longitude})` : ''}</dd>
<dt>${text.depth}</dt><dd id="quake-depth">${depthText(hypo?.depth, text)}</dd>
<dt>${text.magnitude}</dt><dd id="quake-magnitude">${event.magnitude?.value ?? event.magnitude?.condition ?? text.unknown}</dd>
<dt>${text.maxInt}</dt><dd id="quake-maxint">${maxIntText(quake, lang)}</dd>
${event.originTime ? markup`<dt>${text.originTime}</dt><dd>${timeOf(event.originTime)}</dd>` : markup`<dt>${text.shakingTime}</dt><dd>${timeOf(event.arrivalTime)}</dd>`}
</dl>
${quake.point === null && quake.latitude !== null ? markup`<p id="quake-off-map">${text.offMap}</p>` : null}
${areaList(text.prefectures, quake.prefectures, lang)}
${areaList(text.regions, quake.regions, lang)}
${unplacedList(quake.stations, lang)}
<p><a href="${quakeHref(event.eventId)}">${text.eventPage}</a></p>
</section>`;
}

export interface LiveView {
  lang: Lang;
  /** The console's page header (navigation, account menu, language switch). */
  header: SafeHtml;
  /** Newest first. */
  recent: TelegramSummary[];
  /** The serial the stream starts after. */
  position: number;
  quake: QuakeView | null;
  /** Whether the account holds a contract; without one the page points to the Contracts page. */
  contracted: boolean;
  /** The early warning in effect when the page opens (eew-now.ts), shown by the script at once. */
  eew: TimedEewBanner | null;
}

export function renderLivePage(v: LiveView): string {
  const text = liveMessages[v.lang];
  const lines = v.recent.flatMap((r) => {
    const p = payloadOf(r);
    return p?.event === 'telegram' ? [telegramLine(p.data, text)] : [];
  });
  const clientText = JSON.stringify({
    connected: text.connected,
    reconnecting: text.reconnecting,
    notRealTraining: text.notRealTraining,
    notRealTest: text.notRealTest,
    amendsCancelled: text.amendsCancelled,
    amendsCorrected: text.amendsCorrected,
    eewLabel: text.eewLabel,
    eewWarning: text.eewWarning,
    eewForecast: text.eewForecast,
    eewCanceled: text.eewCanceled,
    eewReport: text.eewReport,
    eewFinal: text.eewFinal,
    eewAssumed: text.eewAssumed,
    eewOver: text.eewOver.replace('%s', String(EEW_IN_EFFECT_MS / 60_000)),
    predictedMaxInt: text.predictedMaxInt,
    predictedMaxLgInt: text.predictedMaxLgInt,
    classOrAbove: text.classOrAbove,
    classRange: text.classRange,
    intensities: Object.fromEntries(INTENSITY_ORDER.map((int) => [int, intensityName(int, v.lang)])),
    hypocentre: text.hypocentre,
    depth: text.depth,
    depthShallow: text.depthShallow,
    depthDeep: text.depthDeep,
    magnitude: text.magnitude,
    originTime: text.originTime,
    unknown: text.unknown,
  });
  return livePage(
    v.lang,
    v.header,
    text.liveTitle,
    markup`<div id="live" data-events="${livePaths.events}?after=${v.position}" data-quake="${livePaths.quake}" data-text="${clientText}">
<h1>${text.liveTitle}</h1>
<p>${text.liveIntro}</p>
<p id="live-status" role="status" class="muted">${text.connecting}</p>
${v.contracted ? null : markup`<div class="pointer" id="no-contract"><p>${text.noContract}</p><p><a href="${paths.contracts}"><strong>${text.toContracts}</strong></a></p></div>`}
<div id="eew-banner" role="alert" aria-label="${text.eewLabel}"${v.eew ? markup` data-eew="${JSON.stringify(v.eew)}"` : null} hidden></div>
<p id="eew-over" role="status" class="sr"></p>
<div class="live-columns">
<section id="telegrams" aria-labelledby="telegrams-heading"><h2 id="telegrams-heading">${text.newest}</h2>
<p id="no-telegrams" ${lines.length > 0 ? markup`hidden` : null}>${text.noTelegrams}</p>
<ol id="telegram-list">${lines}</ol></section>
${quakeSection(v.quake, v.lang, text.latestQuake)}
</div>
</div>`,
  );
}

export function renderQuakePage(lang: Lang, header: SafeHtml, quake: QuakeView): string {
  const text = liveMessages[lang];
  const rows = quake.telegrams.map(
    (t: TelegramSummary) =>
      markup`<tr><td data-label="${text.serial}"><a href="${telegramHref(t.serial)}">${t.serial}</a></td><td data-label="${text.type}">${t.conversion?.schema.type ?? t.head.type}</td><td data-label="${text.title}">${t.xmlReport?.head.title ?? ''}</td><td data-label="${text.received}">${timeOf(t.receivedTime)}</td></tr>`,
  );
  const title = `${text.eventTitle} ${quake.event.hypocenter?.name ?? quake.event.eventId}`;
  return livePage(
    lang,
    header,
    title,
    markup`<div>
<nav class="crumbs"><a href="${livePaths.live}">${text.backToLive}</a></nav>
<h1>${title}</h1>
${quakeSection(quake, lang, text.eventPage)}
<h2>${text.telegrams}</h2>
<div class="table-wrap"><table class="stack"><thead><tr><th>${text.serial}</th><th>${text.type}</th><th>${text.title}</th><th>${text.received}</th></tr></thead>
<tbody>${rows}</tbody></table></div>
</div>`,
  );
}

export interface TelegramView {
  lang: Lang;
  /** The console's page header (navigation, account menu, language switch). */
  header: SafeHtml;
  record: TelegramRecord;
  /** For an XML telegram, its JSON conversion; for a conversion, its source XML. */
  related: TelegramRecord | null;
}

/** Bytes of a binary body shown in hexadecimal. */
const HEX_PREVIEW = 512;
/**
 * Bytes of a text body, or of a conversion, shown on the page: the rest is behind the link to the
 * body itself, so a page stays small (escaping can make text several times longer) and cheap.
 */
export const TEXT_PREVIEW_BYTES = 32 * 1024;
/** A conversion larger than this is shown as stored, not pretty-printed (parsing it costs). */
const PRETTY_MAX_BYTES = 256 * 1024;

const bodyHref = (serial: number) => livePaths.body.replace(':serial', String(serial));
const kib = (bytes: number) => `${Math.ceil(bytes / 1024)} KiB`;

/** The beginning of a text at most TEXT_PREVIEW_BYTES long, and a note with the link when cut. */
function preview(id: string, body: string, serial: number, text: LiveText): SafeHtml {
  const bytes = Buffer.from(body, 'utf8');
  if (bytes.length <= TEXT_PREVIEW_BYTES) return markup`<pre id="${id}" tabindex="0">${body}</pre>`;
  return markup`<p class="muted" id="${id}-note">${text.partShown} ${kib(TEXT_PREVIEW_BYTES)} / ${kib(bytes.length)} (<a href="${bodyHref(serial)}">${text.wholeBody}</a>)</p>
<pre id="${id}" tabindex="0">${bytes.subarray(0, TEXT_PREVIEW_BYTES).toString('utf8')}</pre>`;
}

function bodyText(record: TelegramRecord, text: LiveText): SafeHtml {
  const bytes = decodedBody(record);
  if (!bytes) return markup`<p>${text.bodyTooLarge}</p>`;
  if (record.format === 'binary') {
    return markup`<p>${text.binaryBody}</p><pre id="raw-body" tabindex="0">${bytes.subarray(0, HEX_PREVIEW).toString('hex')}</pre>`;
  }
  return preview('raw-body', bytes.toString('utf8'), record.serial, text);
}

function conversionText(record: TelegramRecord, text: LiveText): SafeHtml {
  const bytes = decodedBody(record);
  if (!bytes) return markup`<p>${text.bodyTooLarge}</p>`;
  let shown = bytes.toString('utf8');
  if (bytes.length <= PRETTY_MAX_BYTES) {
    try {
      shown = JSON.stringify(JSON.parse(shown), null, 2);
    } catch {
      // Shown as stored.
    }
  }
  return preview('conversion', shown, record.serial, text);
}

export function renderTelegramPage(v: TelegramView): string {
  const text = liveMessages[v.lang];
  const { record, related } = v;
  const report = record.xmlReport;
  const title = report?.head.title ?? report?.control.title ?? record.head.type;
  const conversion = record.format === 'json' ? record : related?.format === 'json' ? related : null;
  const fact = (name: string, value: string | number | boolean | null | undefined) =>
    markup`<dt>${name}</dt><dd>${value === null || value === undefined ? '—' : String(value)}</dd>`;
  return livePage(
    v.lang,
    v.header,
    `${text.telegramTitle} ${title}`,
    markup`<div>
<nav class="crumbs"><a href="${livePaths.live}">${text.backToLive}</a></nav>
<h1>${title}</h1>
${report?.head.headline ? markup`<p id="headline">${report.head.headline}</p>` : null}
<h2>${text.head}</h2>
<dl class="facts" id="telegram-head">
${fact(text.serial, record.serial)}${fact('id', record.id)}${fact('classification', record.classification)}
${fact(text.type, record.head.type)}${fact('author', record.head.author)}${fact('time', record.head.time)}
${fact('designation', record.head.designation)}${fact('test', record.head.test)}${fact('format', record.format)}
${fact(text.received, record.receivedTime)}
</dl>
${related ? markup`<p><a href="${telegramHref(related.serial)}">${record.format === 'json' ? text.original : text.conversionLink}</a></p>` : null}
${
  report
    ? markup`<h2>${text.xmlReport}</h2>
<dl class="facts" id="xml-report">
${fact('Control/Title', report.control.title)}${fact('Control/DateTime', report.control.dateTime)}${fact('Control/Status', report.control.status)}
${fact('Control/EditorialOffice', report.control.editorialOffice)}${fact('Control/PublishingOffice', report.control.publishingOffice)}
${fact('Head/Title', report.head.title)}${fact('Head/ReportDateTime', report.head.reportDateTime)}${fact('Head/TargetDateTime', report.head.targetDateTime)}
${fact('Head/EventID', report.head.eventId)}${fact('Head/InfoType', report.head.infoType)}${fact('Head/Serial', report.head.serial)}
${fact('Head/InfoKind', report.head.infoKind)}${fact('Head/InfoKindVersion', report.head.infoKindVersion)}${fact('Head/Headline', report.head.headline)}
</dl>`
    : null
}
<h2>${text.conversion}</h2>
${conversion ? conversionText(conversion, text) : markup`<p>${text.noConversion}</p>`}
${record.format === 'json' ? null : markup`<h2>${text.rawBody}</h2>${bodyText(record, text)}`}
</div>`,
  );
}
