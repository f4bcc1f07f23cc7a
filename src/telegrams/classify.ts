import type { Classification } from '../classifications.ts';

const range = (prefix: string, from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `${prefix}${String(from + i).padStart(2, '0')}`);

/**
 * Data type code → classification (docs/api-contract.md "Classifications"): the listed codes first,
 * then the family rules for retired or new XML codes. Non-XML telegrams (A/N, binary) are
 * observation data unless listed.
 */
const listed: Record<Classification, string[]> = {
  'eew.forecast': ['VXSE42', 'VXSE44', 'VXSE45'],
  'eew.warning': ['VXSE43'],
  'eew.realtime': ['VXSE47'],
  'telegram.earthquake': [
    ...['VXSE51', 'VXSE52', 'VXSE53', 'VXSE56', 'VXSE60', 'VXSE61', 'VXSE62'],
    ...['VYSE50', 'VYSE51', 'VYSE52', 'VYSE60', 'VTSE41', 'VTSE51', 'VTSE52', 'VZSE40'],
    ...['IXAC41', 'WEPA60'],
  ],
  'telegram.volcano': [...range('VFVO', 50, 56), 'VFVO60', 'VFSVii', 'VZVO40'],
  'telegram.weather': [
    ...range('VPWW', 53, 61),
    ...['VPWP50', 'VPWS50', 'VPNO50', 'VPOA50', 'VPZJ50', 'VPZJ51', 'VPCJ50', 'VPCJ51', 'VPFJ50', 'VPFJ51'],
    ...['VPBS50', 'VPBS51', ...range('VMCJ', 50, 55), 'VPZI50', 'VPCI50', 'VPAW51', 'VPHW50', 'VPHW51'],
    ...['VPTWii', 'VPTAii', ...range('VPTI', 50, 52), 'VXWW50', 'VXKOii', 'VXSUii', 'VPFT50'],
    // Retired 府県天候情報: weather like its siblings VPZI50/VPCI50, as the production service classed
    // it (the VPF* family rule would say forecast).
    'VPFI50',
  ],
  'telegram.forecast': [
    ...['VPFD51', 'VPFD60', 'VPFD61', 'VPFG50', 'VPFW50', 'VPFW60', 'VPZK50', 'VPCK50', 'VPZK70', 'VPCK70'],
    ...['VZSA50', 'VZSA60', 'VZSF50', 'VZSF51', 'VZSF60', 'VZSF61'],
  ],
  'telegram.observation': ['VGSK50', 'VGSK55', 'VGSK60'],
  'telegram.scheduled': [...range('VPZU', 52, 54), 'VPCU51', 'VPCY51', 'WWJP27', 'WWJP28'],
  'telegram.lightning': ['VPJP40'],
};

const byCode = new Map<string, Classification>();
for (const [cls, codes] of Object.entries(listed) as [Classification, string[]][]) {
  for (const code of codes) byCode.set(code, cls);
}

/** Codes whose last two characters JMA writes as `ii` stand for a numbered series (VXKO50–89…). */
const SERIES = /^(VXKO|VXSU|VFSV|VPTW|VPTA)\d\d$/;

/** Family rules for XML codes not listed (order matters: specific prefixes first). */
const families: [RegExp, Classification][] = [
  [/^(VF|VZVO)/, 'telegram.volcano'],
  [/^(VXSE|VYSE|VTSE|VZSE)/, 'telegram.earthquake'],
  [/^(VPF|VPZK|VPCK|VZS)/, 'telegram.forecast'],
  [/^VG/, 'telegram.observation'],
  [/^(VPZU|VPCU|VPCY)/, 'telegram.scheduled'],
  [/^(VP|VM|VX)/, 'telegram.weather'],
];

/** The classification of a telegram, or null when an XML code belongs to no known family. */
export function classify(type: string, xml: boolean): Classification | null {
  const series = SERIES.exec(type);
  const code = series ? `${series[1]}ii` : type;
  const found = byCode.get(code);
  if (found) return found;
  if (!xml) return 'telegram.observation';
  for (const [pattern, cls] of families) if (pattern.test(type)) return cls;
  return null;
}

export const isEew = (classification: string) => classification.startsWith('eew.');
