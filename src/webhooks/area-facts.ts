// The facts of volcano and weather warnings (summary.ts): the areas under each kind of warning,
// read from their JSON conversions (schemas volcano-information, weather-warning).
import { list, path, record, text, type Json } from './read.ts';
import type { AreaGroup, DocumentHead, Facts } from './types.ts';

/** Areas grouped by the name of each kind they are under, in the order the kinds first appear. */
function groupByKind(items: Json[], isActive: (kind: Json) => boolean): AreaGroup[] {
  const groups = new Map<string, AreaGroup>();
  for (const item of items) {
    const area = text(item.name);
    if (area === null) continue;
    for (const kind of list(item.kinds)) {
      const name = text(kind.name);
      if (name === null || !isActive(kind)) continue;
      const group = groups.get(name) ?? { name, code: text(kind.code), areas: [] };
      if (!group.areas.includes(area)) group.areas.push(area);
      groups.set(name, group);
    }
  }
  return [...groups.values()];
}

/**
 * Whether a volcano's kind is its alert level or warning: codes 1x (levels), 2x (warnings of volcanoes
 * without levels) and 3x (the sea's). The others name what was observed (噴火, 5x and 6x) or the kind
 * of ash forecast (0x), which are no level.
 */
const isLevelOrWarning = (kind: Json | null) => /^[123]\d$/.test(text(kind?.code) ?? '');

export function volcanoFacts(doc: DocumentHead): Facts {
  const body = doc.body;
  const targets = [record(body.target), ...list(body.targets)].filter((t): t is Json => t !== null);
  const subjects = [...new Set(targets.map((t) => text(t.name)).filter((n): n is string => n !== null))];
  const kind = path(targets[0], 'kind');
  // One level for one volcano: an overview of many (VFVO51 全国の活火山) has one per volcano.
  const level = subjects.length === 1 && isLevelOrWarning(kind) ? text(kind?.name) : null;
  const areas = [...list(body.cities), ...list(body.oceanZones)];
  return {
    kind: 'areas',
    level,
    subjects,
    groups: groupByKind(areas, (kind) => kind.condition !== '解除'),
  };
}

/** 特別警報 before 警報 (危険警報 among them) before 注意報 before the rest. */
function weatherRank(name: string): number {
  if (name.includes('特別警報')) return 0;
  if (name.includes('警報')) return 1;
  if (name.includes('注意報')) return 2;
  return 3;
}

export function weatherFacts(doc: DocumentHead): Facts {
  const body = doc.body;
  const areas = list(body.areas).length > 0 ? list(body.areas) : list(body.regions);
  const groups = groupByKind(areas, (kind) => kind.status !== '解除' && kind.status !== 'なし');
  return {
    kind: 'areas',
    level: null,
    subjects: [],
    groups: groups.sort((a, b) => weatherRank(a.name) - weatherRank(b.name)),
  };
}
