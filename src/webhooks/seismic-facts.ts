// The facts of earthquake early warnings, earthquake reports and tsunami telegrams (summary.ts),
// read from their JSON conversions (schemas eew-information, earthquake-information, tsunami-information).
import { intensityRank } from './intensity.ts';
import type { AreaGroup, DocumentHead, Facts, Hypocentre } from './types.ts';
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

export function eewFacts(doc: DocumentHead): Facts {
  const body = doc.body;
  const earthquake = record(body.earthquake);
  const forecast = path(body, 'intensity', 'forecastMaxInt');
  const from = text(forecast?.from);
  const to = text(forecast?.to);
  const warning = body.isWarning === true;
  const assumed = earthquake?.condition === '仮定震源要素';
  return {
    kind: 'eew',
    warning,
    serial: doc.serialNo,
    final: body.isLastInfo === true,
    assumed,
    maxIntensity: from !== null && to !== null ? { from, to } : null,
    areas: warning ? namesOf(list(body.regions)) : [],
    ...hypocentreOf(earthquake),
    // An assumed hypocentre (the PLUM method) is not estimated: JMA writes M1.0 and 10 km for it.
    ...(assumed
      ? { magnitude: { value: null, condition: null }, depth: { value: null, condition: null } }
      : {}),
  };
}

export function earthquakeFacts(doc: DocumentHead): Facts {
  const body = doc.body;
  const intensity = record(body.intensity);
  return {
    kind: 'earthquake',
    maxIntensity: text(intensity?.maxInt),
    strongest: strongestRegions(list(intensity?.regions)),
    tsunami: text(path(body, 'comments', 'forecast')?.text),
    ...hypocentreOf(record(body.earthquake)),
  };
}

/** Regions grouped by their maximum intensity, strongest first, at most STRONGEST_CLASSES groups. */
function strongestRegions(regions: Json[]): AreaGroup[] {
  const byIntensity = new Map<string, string[]>();
  for (const region of regions) {
    const intensity = text(region.maxInt);
    const name = text(region.name);
    if (intensity === null || name === null || intensityRank(intensity) < 0) continue;
    byIntensity.set(intensity, [...(byIntensity.get(intensity) ?? []), name]);
  }
  return [...byIntensity.entries()]
    .sort(([a], [b]) => intensityRank(b) - intensityRank(a))
    .slice(0, STRONGEST_CLASSES)
    .map(([name, areas]) => ({ name, code: null, areas }));
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
