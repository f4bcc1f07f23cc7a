// JMA's seismic intensity classes (震度) and long-period ground motion classes (長周期地震動階級): their
// order and their notation in each language.

const ORDER = ['0', '1', '2', '3', '4', '5-', '5+', '6-', '6+', '7'];

/** The rank of an intensity class (−1 for none or unknown), to compare them. */
export const intensityRank = (intensity: string | null | undefined): number =>
  intensity ? ORDER.indexOf(intensity) : -1;

/**
 * An intensity class as a post writes it: Japanese 震度5弱, English "Shindo 5-" (JMA's scale, not
 * Mercalli's: "-" and "+" are JMA's lower and upper halves, 弱 and 強). `bare` leaves out the word.
 */
export function intensityText(intensity: string, lang: 'ja' | 'en', bare = false): string {
  if (lang === 'ja') {
    const value = intensity.replace('-', '弱').replace('+', '強');
    return bare ? value : `震度${value}`;
  }
  return bare ? intensity : `Shindo ${intensity}`;
}

/** The rank of a long-period ground motion class, 0…4 (−1 for none or unknown), to compare them. */
export const longPeriodRank = (cls: string | null | undefined): number =>
  cls !== null && cls !== undefined && /^[0-4]$/.test(cls) ? Number(cls) : -1;

/** A long-period ground motion class as a post writes it: 階級3, "Class 3". `bare` leaves out the word. */
export function longPeriodText(cls: string, lang: 'ja' | 'en', bare = false): string {
  if (bare) return cls;
  return lang === 'ja' ? `階級${cls}` : `Class ${cls}`;
}
