import { intensityColours, intensityClass, stationColour } from './map.ts';

/**
 * The live view's script and stylesheet, served from 'self' under /console/assets/ (the pages'
 * CSP allows nothing inline). The script only follows the event stream and updates the page:
 * every text it shows is set with textContent, never parsed as HTML, except the earthquake
 * section, which it takes from the server-rendered event page.
 */
export const LIVE_SCRIPT = `'use strict';
(function () {
  var root = document.getElementById('live');
  if (!root) return;
  var text = JSON.parse(root.getAttribute('data-text'));
  var list = document.getElementById('telegram-list');
  var empty = document.getElementById('no-telegrams');
  var status = document.getElementById('live-status');
  var banner = document.getElementById('eew-banner');
  var MAX_ITEMS = 50;
  var source = new EventSource(root.getAttribute('data-events'));

  function el(tag, className, content) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (content !== undefined && content !== null) node.textContent = content;
    return node;
  }
  // Japan time to the second, as the server writes it (layout.ts formatTime).
  function time(iso) {
    var d = new Date(iso);
    if (isNaN(d.getTime())) return iso;
    var jst = new Date(d.getTime() + 9 * 3600000).toISOString();
    return jst.slice(0, 10) + ' ' + jst.slice(11, 19) + ' JST';
  }

  // Training (訓練) and test (試験) telegrams are each said as what they are.
  function notRealText(notReal) {
    return notReal === 'training' ? text.notRealTraining : notReal === 'test' ? text.notRealTest : null;
  }

  source.addEventListener('open', function () { status.textContent = text.connected; });
  source.addEventListener('error', function () { status.textContent = text.reconnecting; });
  source.addEventListener('reload', function () { source.close(); location.reload(); });

  source.addEventListener('telegram', function (e) {
    var t = JSON.parse(e.data);
    var item = el('li', 'telegram');
    item.setAttribute('data-serial', String(t.serial));
    item.setAttribute('data-shown-at', String(Date.now()));
    var link = el('a', null, t.title);
    link.href = t.href;
    item.appendChild(link);
    item.appendChild(el('span', 'type', t.type));
    // A cancellation (取消) or correction (訂正) says so first: it may repeat what it withdraws.
    var amends = t.amends === 'cancelled' ? text.amendsCancelled
      : t.amends === 'corrected' ? text.amendsCorrected : null;
    if (amends) item.appendChild(el('span', 'amends', amends));
    var mark = notRealText(t.notReal);
    if (mark) item.appendChild(el('span', 'not-real', mark));
    item.appendChild(el('time', 'muted', time(t.receivedTime)));
    if (t.headline) item.appendChild(el('p', 'headline', t.headline));
    list.insertBefore(item, list.firstChild);
    if (empty) empty.hidden = true;
    while (list.children.length > MAX_ITEMS) list.removeChild(list.lastChild);
  });

  // A range of classes as JMA forecasts it: \`over\` is "that class or above", 不明 unknown.
  function classRange(range, names) {
    if (!range || range.from === '不明' || range.to === '不明') return text.unknown;
    var name = function (c) { return names[c] || c; };
    if (range.to === 'over') return text.classOrAbove.replace('%s', function () { return name(range.from); });
    if (range.from === range.to) return name(range.from);
    return text.classRange.replace('%s', function () { return name(range.from); })
      .replace('%s', function () { return name(range.to); });
  }

  // A report keeps the banner for the time the server says it has left (eew-now.ts inEffectMs),
  // counted from its arrival here: this computer's clock may be wrong, but it runs. Checked every
  // second rather than by one long timeout, which a computer's sleep would hold back.
  var eewOver = document.getElementById('eew-over');
  var eewEnds = 0;
  var eewCheck = null;
  // Its time over, the banner goes quietly: a polite status says so, not a second alert.
  function endEew() {
    clearInterval(eewCheck);
    eewCheck = null;
    banner.hidden = true;
    banner.textContent = '';
    banner.removeAttribute('data-event-id');
    eewOver.textContent = text.eewOver;
  }
  function keepEew(ms) {
    eewEnds = Date.now() + ms;
    if (eewCheck === null) {
      eewCheck = setInterval(function () { if (Date.now() >= eewEnds) endEew(); }, 1000);
    }
  }

  // The banner of one early warning (eew-now.ts TimedEewBanner): each newer report replaces it.
  function showEew(w) {
    keepEew(w.inEffectMs);
    eewOver.textContent = '';
    banner.textContent = '';
    banner.hidden = false;
    banner.className = 'eew ' + (w.isCanceled ? 'canceled' : w.isWarning ? 'warning' : 'forecast');
    banner.setAttribute('data-event-id', w.eventId);
    // A cancellation (取消) says no more than that the warning is withdrawn, whichever it was.
    banner.appendChild(el('strong', null,
      w.isCanceled ? text.eewLabel : w.isWarning ? text.eewWarning : text.eewForecast));
    var mark = notRealText(w.notReal);
    if (mark) banner.appendChild(el('span', 'not-real', mark));
    if (w.isLastInfo && !w.isCanceled) banner.appendChild(el('span', 'final', text.eewFinal));
    if (w.isCanceled) {
      banner.appendChild(el('p', null, text.eewCanceled));
      return;
    }
    var max = el('p', 'predicted');
    max.appendChild(el('span', null, text.predictedMaxInt + ': '));
    max.appendChild(el('span', 'intensity', classRange(w.forecastMaxInt, text.intensities)));
    banner.appendChild(max);
    if (w.forecastMaxLgInt) {
      banner.appendChild(el('p', null, text.predictedMaxLgInt + ': ' + classRange(w.forecastMaxLgInt, {})));
    }
    var facts = [];
    if (w.hypocentre) {
      facts.push(text.hypocentre + ': ' + w.hypocentre + (w.isAssumed ? ' (' + text.eewAssumed + ')' : ''));
    }
    var depth = w.depthCondition === 'ごく浅い' ? text.depthShallow
      : w.depthCondition === '７００ｋｍ以上' ? text.depthDeep
      : w.depth !== null ? w.depth + ' km' : w.depthCondition;
    if (depth) facts.push(text.depth + ': ' + depth);
    var magnitude = w.magnitude || w.magnitudeCondition;
    if (magnitude) facts.push(text.magnitude + ': ' + magnitude);
    if (w.originTime) facts.push(text.originTime + ': ' + time(w.originTime));
    banner.appendChild(el('p', null, facts.join(' / ')));
    var link = el('a', null, text.eewReport.replace('%s', function () { return w.serialNo || '?'; }));
    link.href = w.href;
    banner.appendChild(link);
  }
  source.addEventListener('eew', function (e) {
    var w = JSON.parse(e.data);
    // A cancellation names its own event: another event's warning on show stays (as on opening).
    var showing = banner.hidden ? null : banner.getAttribute('data-event-id');
    if (w.isCanceled && showing !== null && showing !== w.eventId) return;
    showEew(w);
  });
  // The early warning in effect when the page was rendered (eew-now.ts).
  if (banner.hasAttribute('data-eew')) showEew(JSON.parse(banner.getAttribute('data-eew')));

  // The earthquake section of a server-rendered page put in place of this page's own.
  function showQuake(html) {
    var fresh = new DOMParser().parseFromString(html, 'text/html').getElementById('quake');
    var current = document.getElementById('quake');
    if (!fresh || !current) return;
    // The section keeps this page's heading ("Latest earthquake").
    fresh.querySelector('h2').textContent = current.querySelector('h2').textContent;
    current.replaceWith(document.importNode(fresh, true));
  }

  // Each quake message's page is shown as it comes, unless the page of a later message was shown
  // already: one that answers late never replaces a newer earthquake.
  var quakesAsked = 0;
  var quakeShown = 0;
  source.addEventListener('quake', function (e) {
    var q = JSON.parse(e.data);
    var asked = ++quakesAsked;
    fetch(root.getAttribute('data-quake').replace(':eventId', encodeURIComponent(q.eventId)))
      .then(function (r) {
        if (r.ok) return r.text();
        // Every report of the event withdrawn (取消): if it is the one shown, the live view's own
        // newest earthquake takes its place.
        var current = document.getElementById('quake');
        if (r.status !== 404 || !current || current.getAttribute('data-event-id') !== q.eventId) return null;
        return fetch(location.pathname).then(function (l) { return l.ok ? l.text() : null; });
      })
      .then(function (html) {
        if (!html || asked < quakeShown) return;
        quakeShown = asked;
        showQuake(html);
      })
      .catch(function () {});
  });
})();
`;

export const LIVE_STYLE = `
#telegram-list{list-style:none;padding:0;margin:0}
.live-columns{display:grid;grid-template-columns:minmax(0,1fr);gap:0 2rem}
@media (min-width:960px){.live-columns{grid-template-columns:minmax(0,2fr) minmax(0,3fr)}}
#unplaced summary{cursor:pointer;margin:.8rem 0 .3rem;font-weight:bold}
#telegram-list li{border-bottom:1px solid #ddd;padding:.4rem 0}
#telegram-list .type,.tag{font-family:ui-monospace,monospace;font-size:.85rem;margin-left:.5rem;color:#333}
#telegram-list time{display:block}
.not-real,.final{margin-left:.5rem;padding:0 .3rem;border:1px solid #8a5a00;color:#6b4500;font-size:.8rem}
#telegram-list .amends{margin-left:.5rem;padding:0 .3rem;border:1px solid #8b0000;color:#8b0000;font-size:.8rem;font-weight:bold}
.headline{margin:.2rem 0 0}
.eew{border:3px solid #b00000;background:#fff0f0;color:#600;padding:.6rem 1rem;margin:1rem 0}
.eew.forecast{border-color:#8a5a00;background:#fff8e6;color:#4a3000}
.eew.canceled{border-color:#555;background:#f2f2f2;color:#222}
.eew .intensity{font-size:1.6rem;font-weight:bold}
#quake.training .map{border:3px dashed #8a5a00}
.training-mark{border:3px solid #8a5a00;background:#fff8e6;color:#4a3000;padding:.5rem .9rem;margin:.5rem 0}
.training-mark strong{font-size:1.2rem;margin-right:.5rem}
.eew p{margin:.2rem 0}
.map{width:100%;height:auto;border:1px solid #bbb}
.areas{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.3rem .8rem}
.legend{list-style:none;padding:0;margin:.3rem 0;display:flex;flex-wrap:wrap;gap:.2rem .8rem;font-size:.85rem}
.chip{display:inline-block;width:.9rem;height:.9rem;border:1px solid #333;vertical-align:middle;margin-right:.3rem}
pre{white-space:pre-wrap;word-break:break-all;background:#f6f6f6;border:1px solid #ddd;padding:.6rem;max-height:40rem;overflow:auto;font-size:.85rem}
dl.facts{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.2rem 1rem}
dl.facts dt{font-weight:bold}dl.facts dd{margin:0;overflow-wrap:anywhere}
a:focus-visible,button:focus-visible,input:focus-visible{outline:3px solid #1a5fb4;outline-offset:2px}
nav.crumbs{margin:.5rem 0}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
.status-table td:last-child{text-align:right}
`.concat(
  Object.entries(intensityColours)
    .map(([int, colour]) => `.${intensityClass(int)}{background:${colour}}`)
    .join(''),
  `.int-unreported{background:${stationColour('!5-')}}`,
);
