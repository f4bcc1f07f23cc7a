import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { onMap, prefectureOutlines, project, renderMap } from '../../../src/console/live/map.ts';

/** The rings of SVG path data made of relative `m` (with implicit line-tos) and `z`, as the package writes it. */
function rings(d: string): [number, number][][] {
  const tokens = d.match(/[mMzZlL]|-?\d*\.?\d+(?:e-?\d+)?/g) ?? [];
  const out: [number, number][][] = [];
  let x = 0;
  let y = 0;
  let startX = 0;
  let startY = 0;
  let ring: [number, number][] = [];
  for (let i = 0; i < tokens.length;) {
    const t = tokens[i]!;
    if (t === 'z' || t === 'Z') {
      x = startX;
      y = startY;
      i++;
    } else if (t === 'm') {
      x += Number(tokens[i + 1]);
      y += Number(tokens[i + 2]);
      i += 3;
      startX = x;
      startY = y;
      ring = [[x, y]];
      out.push(ring);
      while (i < tokens.length && /^-?[\d.]/.test(tokens[i]!)) {
        x += Number(tokens[i]);
        y += Number(tokens[i + 1]);
        i += 2;
        ring.push([x, y]);
      }
    } else {
      throw new Error(`path command ${t} not expected in this map`);
    }
  }
  return out;
}

/** Even-odd rule over every ring of the prefecture. */
function inside(d: string, p: { x: number; y: number }): boolean {
  let hit = false;
  for (const ring of rings(d)) {
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const [xi, yi] = ring[i]!;
      const [xj, yj] = ring[j]!;
      if (yi > p.y !== yj > p.y && p.x < ((xj - xi) * (p.y - yi)) / (yj - yi) + xi) hit = !hit;
    }
  }
  return hit;
}

/** Places at least 15 km inland, with their prefecture's JIS code (coordinates from public gazetteers). */
const LANDMARKS: [name: string, latitude: number, longitude: number, code: string][] = [
  ['Asahikawa', 43.7706, 142.3649, '01'],
  ['Obihiro', 42.9236, 143.1966, '01'],
  ['Hirosaki', 40.6031, 140.4641, '02'],
  ['Morioka', 39.7036, 141.1527, '03'],
  ['Osaki (Furukawa)', 38.5771, 140.9557, '04'],
  ['Yokote', 39.3114, 140.5533, '05'],
  ['Yamagata', 38.2405, 140.3634, '06'],
  ['Koriyama', 37.4005, 140.3597, '07'],
  ['Utsunomiya', 36.5551, 139.8828, '09'],
  ['Maebashi', 36.3895, 139.0634, '10'],
  ['Nagaoka', 37.4464, 138.8512, '15'],
  ['Matsumoto', 36.238, 137.972, '20'],
  ['Kofu', 35.6642, 138.5684, '19'],
  ['Takayama', 36.1461, 137.2522, '21'],
  ['Toyota', 35.0826, 137.156, '23'],
  ['Nara', 34.6851, 135.8048, '29'],
  ['Tsuyama', 35.0693, 134.0044, '33'],
  ['Miyoshi', 34.8057, 132.8516, '34'],
  ['Yamaguchi', 34.1859, 131.4714, '35'],
  ['Ozu', 33.5062, 132.5446, '38'],
  ['Kurume', 33.3192, 130.5083, '40'],
  ['Hitoyoshi', 32.2107, 130.7627, '43'],
  ['Hita', 33.3213, 130.941, '44'],
  ['Miyakonojo', 31.7196, 131.0617, '45'],
  ['Kirishima', 31.7413, 130.7632, '46'],
  ['Okinawa City', 26.3344, 127.8056, '47'],
];

describe('the map of Japan', () => {
  it('has the 47 prefectures, in JIS code order', () => {
    const outlines = prefectureOutlines();
    assert.deepEqual(
      outlines.map((p) => p.code),
      Array.from({ length: 47 }, (_, i) => String(i + 1).padStart(2, '0')),
    );
    for (const p of outlines) assert.ok(rings(p.path).length > 0, `prefecture ${p.code} has an outline`);
  });

  it('projects places inland into their own prefecture and no other', () => {
    const outlines = prefectureOutlines();
    for (const [name, latitude, longitude, code] of LANDMARKS) {
      const at = project(latitude, longitude);
      const hits = outlines.filter((p) => inside(p.path, at)).map((p) => p.code);
      assert.deepEqual(hits, [code], `${name} (${latitude}, ${longitude}) → ${at.x},${at.y}`);
    }
  });

  it('projects the sea off the coasts into no prefecture', () => {
    const outlines = prefectureOutlines();
    for (const [name, latitude, longitude] of [
      ['off Sanriku', 39.0, 143.0],
      ['Suruga Bay', 34.95, 138.6],
      ['Sea of Japan off Noto', 37.8, 136.5],
      ['Hyuga-nada', 32.2, 132.0],
    ] as const) {
      const at = project(latitude, longitude);
      assert.deepEqual(
        outlines.filter((p) => inside(p.path, at)).map((p) => p.code),
        [],
        name,
      );
    }
  });

  it('fills each prefecture with its maximum intensity and places the epicentre', () => {
    const svg = String(
      renderMap(
        { latitude: 37.5, longitude: 137.2, maxInt: '7' },
        [
          { code: '17', maxInt: '7' },
          { code: '15', maxInt: '5+' },
          { code: '47', maxInt: '1' },
        ],
        'map',
      ),
    );
    const fills = new Map(
      [...svg.matchAll(/<path id="pref-(\d\d)" d="[^"]*" fill="([^"]*)"( data-max-int="([^"]*)")?/g)].map(
        (m) => [m[1], { fill: m[2], maxInt: m[4] }],
      ),
    );
    assert.equal(fills.size, 47);
    assert.deepEqual(fills.get('17'), { fill: '#b40068', maxInt: '7' });
    assert.deepEqual(fills.get('15'), { fill: '#ff9900', maxInt: '5+' });
    assert.deepEqual(fills.get('47'), { fill: '#f2f2ff', maxInt: '1' });
    assert.deepEqual(fills.get('13'), { fill: '#fdfdf8', maxInt: undefined });
    const at = project(37.5, 137.2);
    assert.match(
      svg,
      new RegExp(`<g id="epicentre" visibility="visible" transform="translate\\(${at.x} ${at.y}\\)"`),
    );
  });

  it('hides the epicentre off the map (far south, far east)', () => {
    for (const [latitude, longitude] of [
      [10, 140],
      [40, 155],
    ] as const) {
      assert.equal(onMap(project(latitude, longitude)), false);
      const svg = String(renderMap({ latitude, longitude, maxInt: '3' }, [], 'map'));
      assert.match(svg, /<g id="epicentre" visibility="hidden"/);
    }
    assert.equal(onMap(project(44.0, 147.5)), true, 'the sea east of Hokkaido is drawn');
  });
});
