/**
 * Issuing office (Control/EditorialOffice) → the 4-letter office code the transport would carry
 * as `head.author`. Only codes confirmed by the production service's own samples are listed.
 */
const codes: Record<string, string> = {
  気象庁本庁: 'RJTD',
  気象庁予報部: 'JPTK',
  札幌管区気象台: 'JPSP',
  函館地方気象台: 'JPSF',
  仙台管区気象台: 'JPSN',
  熊谷地方気象台: 'JPTC',
  横浜地方気象台: 'JPTF',
  富山地方気象台: 'JPNA',
  大阪管区気象台: 'JPOS',
  京都地方気象台: 'JPOA',
  神戸地方気象台: 'JPOB',
  松江地方気象台: 'JPHB',
  岡山地方気象台: 'JPHC',
  下関地方気象台: 'JPFA',
  福岡管区気象台: 'JPFK',
  佐賀地方気象台: 'JPFC',
  長崎地方気象台: 'JPFE',
  鹿児島地方気象台: 'JPKG',
};

/**
 * The author of an XML telegram whose transport gave none and whose office is not listed: JMA
 * headquarters. A relay must not drop a valid telegram over an informational field; the transport
 * (header, file name, `author` parameter) gives the exact code when it is known.
 */
export const UNLISTED_OFFICE_AUTHOR = 'RJTD';

export function authorFromOffice(editorialOffice: string): string {
  return codes[editorialOffice] ?? UNLISTED_OFFICE_AUTHOR;
}
