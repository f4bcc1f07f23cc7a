// The facts of earthquake early warnings, earthquake reports and tsunami telegrams (summary.ts),
// read from their JSON conversions (schemas eew-information, earthquake-information, tsunami-information).
import { NOT_RECEIVED } from '../conversion/intensity-observation.ts';
import { intensityRank, longPeriodRank } from './intensity.ts';
import type { AreaGroup, ClassRange, DocumentHead, Facts, Hypocentre, LongPeriod } from './types.ts';
import { list, namesOf, path, record, text, type Json } from './read.ts';

/** How many intensity classes of regions an earthquake report lists. */
const STRONGEST_CLASSES = 3;

function hypocentreOf(earthquake: Json | null): Hypocentre {
  const hypocenter = path(earthquake, 'hypocenter');
  const magnitude = path(earthquake, 'magnitude');
  const depth = path(hypocenter, 'depth');
  return {
    epicentre: text(hypocenter?.name),
    magnitude: magnitude ? { value: text(magnitude.value), condition: text(magnitude.condition) } : null,
    depth: depth ? { value: text(depth.value), condition: text(depth.condition) } : null,
    originTime: text(earthquake?.originTime),
  };
}

/** JMA's forecast range (`{from, to}`), or null. */
function rangeOf(value: Json | null): ClassRange | null {
  const from = text(value?.from);
  const to = text(value?.to);
  return from !== null && to !== null ? { from, to } : null;
}

export function eewFacts(doc: DocumentHead): Facts {
  const body = doc.body;
  const earthquake = record(body.earthquake);
  const warning = body.isWarning === true;
  const assumed = earthquake?.condition === '仮定震源要素';
  return {
    kind: 'eew',
    warning,
    serial: doc.serialNo,
    final: body.isLastInfo === true,
    assumed,
    maxIntensity: rangeOf(path(body, 'intensity', 'forecastMaxInt')),
    maxLongPeriod: rangeOf(path(body, 'intensity', 'forecastMaxLgInt')),
    areas: warning ? namesOf(list(body.regions)) : [],
    ...hypocentreOf(earthquake),
    // An assumed hypocentre (the PLUM method) is not estimated: JMA writes M1.0, 10 km and the time
    // it assumes for it, which the post leaves out as the live view's banner does.
    ...(assumed
      ? {
          magnitude: { value: null, condition: null },
          depth: { value: null, condition: null },
          originTime: null,
        }
      : {}),
  };
}

export function earthquakeFacts(doc: DocumentHead): Facts {
  const body = doc.body;
  const intensity = record(body.intensity);
  const longPeriod = longPeriodOf(intensity);
  return {
    kind: 'earthquake',
    maxIntensity: text(intensity?.maxInt),
    strongest: longPeriod ? [] : strongestRegions(list(intensity?.regions)),
    longPeriod,
    unreceived: namesOf(list(intensity?.cities).filter((city) => city.condition === NOT_RECEIVED)),
    tsunami: text(path(body, 'comments', 'forecast')?.text),
    ...hypocentreOf(record(body.earthquake)),
  };
}

/** Regions grouped by their maximum intensity, strongest first, at most STRONGEST_CLASSES groups. */
const strongestRegions = (regions: Json[]) => groupByClass(regions, 'maxInt', intensityRank);

/** Regions grouped by the class in `key`, strongest first, at most STRONGEST_CLASSES groups of rank `min` or more. */
function groupByClass(regions: Json[], key: string, rank: (cls: string) => number, min = 0): AreaGroup[] {
  const byClass = new Map<string, string[]>();
  for (const region of regions) {
    const cls = text(region[key]);
    const name = text(region.name);
    if (cls === null || name === null || rank(cls) < min) continue;
    byClass.set(cls, [...(byClass.get(cls) ?? []), name]);
  }
  return [...byClass.entries()]
    .sort(([a], [b]) => rank(b) - rank(a))
    .slice(0, STRONGEST_CLASSES)
    .map(([name, areas]) => ({ name, code: null, areas }));
}

/** JMA's LgCategory that names regions of a notable class with an intensity of 4 or less: that class. */
const LOW_INTENSITY_FROM: Record<string, string> = { '2': '1', '4': '3' };

/** The observed long-period ground motion of a VXSE62 (`maxLgInt` present), else null. */
function longPeriodOf(intensity: Json | null): LongPeriod | null {
  const max = text(intensity?.maxLgInt);
  if (max === null || longPeriodRank(max) < 0) return null;
  const regions = list(intensity?.regions);
  const category = text(intensity?.lgCategory) ?? '';
  const from = Object.hasOwn(LOW_INTENSITY_FROM, category) ? LOW_INTENSITY_FROM[category]! : null;
  const lowIntensity = (region: Json) => {
    const rank = intensityRank(text(region.maxInt));
    return rank >= 0 && rank <= intensityRank('4');
  };
  const low =
    from === null
      ? []
      : regions.filter((r) => longPeriodRank(text(r.maxLgInt)) >= Number(from) && lowIntensity(r));
  return {
    max,
    // Class 0 (less than 1) is no notable shaking: JMA's headline lists classes 1 to 4.
    strongest: groupByClass(regions, 'maxLgInt', longPeriodRank, 1),
    lowIntensity: from !== null && low.length > 0 ? { from, areas: namesOf(low) } : null,
  };
}

/** Tsunami classes in order of severity (JMA's codes); a class not listed comes after them. */
const TSUNAMI_CLASS_ORDER = ['52', '53', '51', '62', '71', '72', '73', '50', '60'];

export function tsunamiFacts(doc: DocumentHead): Facts {
  // By name: JMA gives one class several codes (津波予報（若干の海面変動） is 71, 72 or 73 by what came
  // before it), and a post shows the class once.
  const classes = new Map<string, AreaGroup>();
  for (const forecast of list(path(doc.body, 'tsunami')?.forecasts)) {
    const kind = record(forecast.kind);
    const code = text(kind?.code);
    const name = text(kind?.name);
    const area = text(forecast.name);
    if (code === null || name === null || area === null || code === '00') continue;
    const group = classes.get(name) ?? { name, code, areas: [] };
    group.areas.push(area);
    classes.set(name, group);
  }
  const rank = (code: string | null) => {
    const i = TSUNAMI_CLASS_ORDER.indexOf(code ?? '');
    return i < 0 ? TSUNAMI_CLASS_ORDER.length : i;
  };
  return { kind: 'tsunami', classes: [...classes.values()].sort((a, b) => rank(a.code) - rank(b.code)) };
}
