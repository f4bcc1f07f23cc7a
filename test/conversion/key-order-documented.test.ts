/**
 * Key order of the schemas the gold pairs do not cover: where the production service's field
 * definitions and its schema package's types (@dmdata/telegram-json-types) give an object's members
 * in the same order, Namazu writes them in that order (its documents are compared, hashed and shown
 * as text by clients). Checked on every object at the path in every fixture of the schema's types,
 * over the members the object holds. Where the two disagree, the package's order is kept and not
 * listed here: production's real early warnings write `intensity.regions[]` in the package's order,
 * not the page's (docs/conversion.md). Orders both leave open follow the XML.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fixtureIndex, restFixtureIndex } from '../support/fixtures.ts';
import { convertFixture } from './gold.ts';

interface DocumentedOrder {
  /** Path of the objects, arrays as `[]`: `$.body.references[].subCity`. */
  at: string;
  /** The members in the field definitions' order. */
  order: string[];
}

/** The field definitions' orders (dmdata.jp docs/reference/conversion/json/schema/<schema>.md). */
const DOCUMENTED: Record<string, { types: RegExp; orders: DocumentedOrder[] }> = {
  // weather-warning.md, "6. stormSurgeSection", "8. 7. station" (the page's `references[]` and its
  // `subCity` differ from the package: code, name, codeType; names, codes).
  'weather-warning 1.1.0': {
    types: /^VPWW5[5-9]$|^VPWW6[01]$|^VPWS50$/,
    orders: [
      {
        at: '$.body.stormSurgeSections[]',
        order: ['code', 'codeType', 'name', 'subCity', 'location', 'kinds', 'changeStatus', 'condition'],
      },
      { at: '$.body.references[].stations[]', order: ['name', 'location', 'criteria'] },
    ],
  },
  // weather-commentary.md, "3. 2. info", "3. 3. timeSeries" (a forecast time series' item: the page
  // puts `codes` before `name`, the package after).
  'weather-commentary 1.0.0': {
    types: /^VPBS5[01]$|^VP[ZCF]J51$|^VMCJ5[3-6]$/,
    orders: [
      {
        at: '$.body.observation.infos[].items[]',
        order: ['code', 'codeType', 'name', 'subCity', 'status', 'location', 'kinds'],
      },
      {
        at: '$.body.observation.timeSeries[].items[]',
        order: ['code', 'codeType', 'name', 'subCity', 'status', 'location', 'kinds'],
      },
    ],
  },
  // forecast-prefecture.md, "2. 1. 3. 2. item" (VPFW50 最低・最高気温; the page puts `condition`
  // before `range`, the package after).
  'forecast-prefecture 1.0.0': {
    types: /^VPFW50$|^VPFD51$/,
    orders: [
      {
        at: '$.body.station.timeSeries[].items[].kinds[].minimums[].range',
        order: ['type', 'unit', 'from', 'to'],
      },
    ],
  },
  // weather-warning-timeseries.md, "1. 2. 2. item" and its series.
  'weather-warning-timeseries 1.0.0': {
    types: /^VPWP50$/,
    orders: [
      { at: '$.body.city.timeSeries[].items[]', order: ['code', 'name', 'kinds'] },
      { at: '$.body.city.timeSeries[].items[].kinds[]', order: ['status', 'dateTime', 'properties'] },
      {
        at: '$.body.city.timeSeries[].items[].kinds[].properties[].significancyPart.base.significances[]',
        order: ['refId', 'type', 'code', 'name'],
      },
    ],
  },
};

/** Every object at `at` in a document, with its path. */
function objectsAt(value: unknown, at: string, path = '$'): Record<string, unknown>[] {
  if (Array.isArray(value)) return value.flatMap((v) => objectsAt(v, at, `${path}[]`));
  if (typeof value !== 'object' || value === null) return [];
  const here = path === at ? [value as Record<string, unknown>] : [];
  if (!at.startsWith(path)) return here;
  return [...here, ...Object.entries(value).flatMap(([k, v]) => objectsAt(v, at, `${path}.${k}`))];
}

for (const [schema, { types, orders }] of Object.entries(DOCUMENTED)) {
  test(`${schema}: members in the order of the field definitions, in every fixture`, () => {
    const fixtures = [...fixtureIndex(), ...restFixtureIndex()].filter((f) => types.test(f.type));
    assert.ok(fixtures.length > 0, 'no fixtures');
    const seen = new Set<string>();
    const mismatches = new Set<string>();
    for (const f of fixtures) {
      const outcome = convertFixture(f.path, f.type);
      assert.ok(outcome?.ok, `${f.file}: ${outcome && !outcome.ok ? outcome.reason : 'declined'}`);
      if (`${outcome.schema.type} ${outcome.schema.version}` !== schema) continue;
      for (const { at, order } of orders) {
        for (const object of objectsAt(outcome.document, at)) {
          seen.add(at);
          const ours = Object.keys(object).filter((k) => order.includes(k));
          const documented = order.filter((k) => k in object);
          if (ours.join() !== documented.join())
            mismatches.add(`${at}: ${ours.join()} | ${documented.join()}`);
        }
      }
    }
    assert.deepEqual([...mismatches], []);
    // Every documented path is met by some fixture, or the check would pass on nothing.
    assert.deepEqual(
      orders.map((o) => o.at).filter((at) => !seen.has(at)),
      [],
    );
  });
}
