import type { WeatherInformation } from '@dmdata/telegram-json-types';
import { writtenText } from '../free-text.ts';
import { buildDocument } from '../head.ts';
import type { Converter } from '../types.ts';

type Body = WeatherInformation.v1_0_0.PublicBody | WeatherInformation.v1_0_0.PublicBodyVPFG50;

/**
 * 気象情報 in plain text (同一現象用平文情報 and 平文情報: VPZJ50, VPCJ50, VPFJ50, VPSG50, VPZS50,
 * VPTI50–52, VPFT50, VMCJ50–52, VPFG50, VPZK70) → weather-information 1.0.0
 * (docs/conversion/weather-information.md). A cancellation has the same body as any other telegram.
 */
export const weatherInformation: Converter = {
  schema: { type: 'weather-information', version: '1.0.0' },
  convert(source) {
    const xmlBody = source.report.child('Body');
    const targetArea = xmlBody?.child('TargetArea');
    const body: Body = {
      notice: writtenText(xmlBody?.child('Notice')) ?? null,
      ...(targetArea
        ? {
            target: {
              code: targetArea.textAt('Code')?.trim() ?? '',
              name: targetArea.textAt('Name')?.trim() ?? '',
            },
          }
        : {}),
      comment: writtenText(xmlBody?.at('Comment/Text')) ?? '',
    };
    return buildDocument(source, this.schema, body);
  },
};
