// A language-neutral summary of one telegram: the facts a ready-made post shows (docs/webhooks.md,
// "Ready-made posts"), read once per telegram from its JSON conversion, or from the XML report's
// Control and Head when the telegram has none. Pure: no I/O. The wording in Japanese or English is
// wording.ts's job; the request each service expects is formats/'s.
import type { TelegramRecord } from '../telegrams/record.ts';
import { earthquakeFacts, eewFacts, tsunamiFacts } from './seismic-facts.ts';
import { volcanoFacts, weatherFacts } from './area-facts.ts';
import { intensityRank, longPeriodRank } from './intensity.ts';
import type { AreaGroup, Category, DocumentHead, Facts, Mark, Severity, TelegramSummary } from './types.ts';

export type { TelegramSummary } from './types.ts';

const CATEGORY_OF_SCHEMA: Record<string, Category> = {
  'eew-information': 'eew',
  'earthquake-information': 'earthquake',
  'earthquake-hypocenter-update': 'earthquake',
  'earthquake-counts': 'earthquake',
  'earthquake-explanation': 'earthquake',
  'earthquake-nankai': 'earthquake',
  'tsunami-information': 'tsunami',
  'volcano-information': 'volcano',
};

const CATEGORY_OF_CLASSIFICATION: Record<string, Category> = {
  'eew.forecast': 'eew',
  'eew.warning': 'eew',
  'eew.realtime': 'eew',
  'telegram.volcano': 'volcano',
  'telegram.weather': 'weather',
};

/**
 * The summary of a telegram from its JSON conversion (`document`, parsed), or, without one, from
 * the XML report's Head (title and headline). Null for a telegram with neither (A/N, binary).
 * Never throws on an unexpected shape: a field it cannot read is left out.
 */
export function summarize(record: TelegramRecord, document: unknown | null): TelegramSummary | null {
  const doc = isDocument(document) ? document : null;
  if (doc) return fromDocument(record, doc);
  const report = record.xmlReport;
  if (!report) return null;
  const category = categoryOfRecord(record, null);
  const cancelled = report.head.infoType === '取消';
  const headline = clean(report.head.headline);
  return finish({
    type: record.head.type,
    category,
    title: oneLine(report.head.title),
    mark: markOf(report.control.status, report.head.title),
    infoType: report.head.infoType,
    reportTime: report.head.reportDateTime,
    eventId: report.head.eventId,
    headline: cancelled ? null : headline,
    text: cancelled ? withdrawal(headline) : null,
    facts: { kind: 'plain' },
  });
}

function fromDocument(record: TelegramRecord, doc: DocumentHead): TelegramSummary {
  const category = categoryOfRecord(record, doc._schema.type);
  const cancelled = doc.infoType === '取消';
  const body = doc.body;
  const facts = cancelled ? { kind: 'plain' as const } : factsOf(category, doc);
  const text = typeof body.text === 'string' ? clean(body.text) : null;
  const headline = clean(doc.headline);
  return finish({
    type: record.head.type,
    category,
    title: oneLine(doc.title),
    mark: markOf(doc.status, doc.title),
    infoType: doc.infoType,
    reportTime: doc.reportDateTime,
    eventId: doc.eventId,
    headline: cancelled ? null : headline,
    text: cancelled ? withdrawal(text, headline) : facts.kind === 'plain' ? text : null,
    facts,
  });
}

/**
 * JMA's own sentence withdrawing a telegram: the first of `texts` that says so (取り消します), else
 * null, and the post says it itself (wording.ts). Never the rest: a cancellation of a meteorological
 * type repeats the headline and body of the telegram it withdraws (docs/conversion.md
 * "Cancellations"), which a post must not show as if it were in force.
 */
function withdrawal(...texts: (string | null)[]): string | null {
  return texts.find((text) => text !== null && /取り?消/.test(text)) ?? null;
}

function factsOf(category: Category, doc: DocumentHead): Facts {
  switch (category) {
    case 'eew':
      return eewFacts(doc);
    case 'earthquake':
      return earthquakeFacts(doc);
    case 'tsunami':
      return tsunamiFacts(doc);
    case 'volcano':
      return volcanoFacts(doc);
    case 'weather':
      return weatherFacts(doc);
    default:
      return { kind: 'plain' };
  }
}

function categoryOfRecord(record: TelegramRecord, schema: string | null): Category {
  if (schema !== null && Object.hasOwn(CATEGORY_OF_SCHEMA, schema)) return CATEGORY_OF_SCHEMA[schema]!;
  if (Object.hasOwn(CATEGORY_OF_CLASSIFICATION, record.classification)) {
    return CATEGORY_OF_CLASSIFICATION[record.classification]!;
  }
  if (record.classification === 'telegram.earthquake') {
    return record.head.type.startsWith('VTSE') ? 'tsunami' : 'earthquake';
  }
  return 'other';
}

function markOf(status: string, title: string): Mark {
  if (status === '訓練') return 'training';
  if (status === '試験' || title === '緊急地震速報配信テスト') return 'test';
  return null;
}

/** A telegram's summary for a test of a webhook (docs/webhooks.md "Testing with a telegram"): marked as a test, so never loud. */
export function markedAsTest(summary: TelegramSummary): TelegramSummary {
  return finish({ ...summary, mark: 'test' });
}

/** The summary with its severity: a training or test telegram is never louder than `default`. */
function finish(summary: Omit<TelegramSummary, 'severity'>): TelegramSummary {
  const severity = severityOf(summary);
  const capped = summary.mark !== null && (severity === 'urgent' || severity === 'high');
  return { ...summary, severity: capped ? 'default' : severity };
}

function severityOf(summary: Omit<TelegramSummary, 'severity'>): Severity {
  const { facts } = summary;
  if (summary.infoType === '取消') return 'default';
  switch (facts.kind) {
    case 'eew':
      // The warning telegram itself is urgent; a forecast of an event under a warning is high.
      if (summary.title === '緊急地震速報（警報）') return 'urgent';
      return facts.warning ? 'high' : 'default';
    case 'earthquake': {
      const rank = intensityRank(facts.maxIntensity);
      // Long-period class 3 (非常に大きな揺れ in high-rise buildings) or more is high at any intensity.
      return rank >= intensityRank('5-') || longPeriodRank(facts.longPeriod?.max) >= 3
        ? 'high'
        : rank >= intensityRank('3') || rank < 0
          ? 'default'
          : 'low';
    }
    case 'tsunami':
      return tsunamiSeverity(facts.classes);
    case 'areas':
      return summary.category === 'volcano'
        ? volcanoSeverity(summary.title, facts.level, facts.groups)
        : weatherSeverity(facts.groups);
    default:
      return summary.category === 'eew' ? 'default' : 'low';
  }
}

function tsunamiSeverity(classes: AreaGroup[]): Severity {
  const codes = new Set(classes.map((c) => c.code));
  if (codes.has('52') || codes.has('53')) return 'urgent';
  if (codes.has('51')) return 'high';
  if (codes.has('62')) return 'default';
  return 'low';
}

function volcanoSeverity(title: string, level: string | null, groups: AreaGroup[]): Severity {
  // A 噴火速報 names the eruption (噴火, 噴火したもよう) in its kinds: only its title says what it is.
  if (title.includes('噴火速報')) return 'high';
  const names = [level ?? '', ...groups.map((g) => g.name)].join(' ');
  if (/レベル[４５45]|居住地域|噴火警報：避難/.test(names)) return 'high';
  if (/警報/.test(names)) return 'default';
  return 'low';
}

function weatherSeverity(groups: AreaGroup[]): Severity {
  const names = groups.map((g) => g.name).join(' ');
  if (names.includes('特別警報') || /レベル５/.test(names)) return 'high';
  if (names.includes('警報')) return 'default';
  return 'low';
}

function isDocument(value: unknown): value is DocumentHead {
  if (typeof value !== 'object' || value === null) return false;
  const doc = value as Partial<DocumentHead>;
  return (
    typeof doc._schema?.type === 'string' &&
    typeof doc.title === 'string' &&
    typeof doc.status === 'string' &&
    typeof doc.infoType === 'string' &&
    typeof doc.reportDateTime === 'string' &&
    typeof doc.body === 'object' &&
    doc.body !== null
  );
}

/** A title on one line: JMA pads some with runs of blanks ("火山名  浅間山  噴火警報"). */
const oneLine = (title: string) => title.replace(/[\s\u3000]+/g, ' ').trim();

/** Text as JMA wrote it, trimmed of the full-width and ASCII blanks around it; null when empty. */
export function clean(text: string | null | undefined): string | null {
  if (typeof text !== 'string') return null;
  const trimmed = text.replace(/^[\s\u3000]+|[\s\u3000]+$/g, '');
  return trimmed === '' ? null : trimmed;
}
