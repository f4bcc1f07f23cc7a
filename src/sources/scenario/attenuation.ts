/**
 * Ground motion of a scenario earthquake (docs/sources.md "Intensities"):
 * - peak ground velocity on stiff ground (Vs 600 m/s) by Si & Midorikawa (1999),
 *   log PGV = 0.58 Mw + 0.0038 D + d − 1.29 − log(X + 0.0028·10^(0.5 Mw)) − 0.002 X;
 * - amplified to the surface by the factor of Midorikawa et al. (1994) for an average site
 *   (AVS30 = 400 m/s against 600 m/s: (600/400)^0.66);
 * - converted to JMA instrumental intensity by Midorikawa, Fujimoto & Muramatsu (1999),
 *   I = 2.68 + 1.72 log PGV (I ≥ 4), I = 2.30 + 2.01 log PGV below.
 */

/** Hypocentre of a scenario: degrees, km, magnitude (taken as Mw). */
export interface Source {
  latitude: number;
  longitude: number;
  depthKm: number;
  magnitude: number;
}

const EARTH_RADIUS_KM = 6371;
const SITE_AMPLIFICATION = (600 / 400) ** 0.66;

/** Great-circle distance between two points, km. */
export function epicentralDistanceKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLon = (lon2 - lon1) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Instrumental intensity at a site. The relation is defined up to Mw 8.3; larger values are capped. */
export function instrumentalIntensity(source: Source, latitude: number, longitude: number): number {
  const mw = Math.min(source.magnitude, 8.3);
  const depth = Math.max(source.depthKm, 0);
  const distance = Math.hypot(
    epicentralDistanceKm(source.latitude, source.longitude, latitude, longitude),
    depth,
  );
  // Fault type term d: crustal (0) for shallow events, inter-plate (−0.02) below 30 km.
  const faultTerm = depth <= 30 ? 0 : -0.02;
  const logPgv =
    0.58 * mw +
    0.0038 * Math.min(depth, 200) +
    faultTerm -
    1.29 -
    Math.log10(distance + 0.0028 * 10 ** (0.5 * mw)) -
    0.002 * distance;
  const logSurface = logPgv + Math.log10(SITE_AMPLIFICATION);
  const high = 2.68 + 1.72 * logSurface;
  return high >= 4 ? high : 2.3 + 2.01 * logSurface;
}

/** JMA seismic intensity classes, weakest first, as the XML writes them. */
export const INTENSITY_CLASSES = ['0', '1', '2', '3', '4', '5-', '5+', '6-', '6+', '7'] as const;
export type IntensityClass = (typeof INTENSITY_CLASSES)[number];

/** The class of an instrumental intensity (JMA's rounding: 4.5 ≤ I < 5.0 is 5-, …). */
export function intensityClass(value: number): IntensityClass {
  const bounds: [number, IntensityClass][] = [
    [6.5, '7'],
    [6.0, '6+'],
    [5.5, '6-'],
    [5.0, '5+'],
    [4.5, '5-'],
    [3.5, '4'],
    [2.5, '3'],
    [1.5, '2'],
    [0.5, '1'],
  ];
  const rounded = Math.round(value * 10) / 10;
  for (const [bound, cls] of bounds) if (rounded >= bound) return cls;
  return '0';
}

export const classRank = (c: IntensityClass): number => INTENSITY_CLASSES.indexOf(c);
