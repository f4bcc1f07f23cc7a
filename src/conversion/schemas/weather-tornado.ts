import type { WeatherTornado } from '@dmdata/telegram-json-types';
import { documentConverter } from '../head.ts';
import { codeName } from '../meteorology.ts';
import type { ConversionSource } from '../types.ts';
import { trimmedText, type XmlElement } from '../xml-element.ts';

type PublicBody = WeatherTornado.v1_0_0.PublicBody;
type Target = WeatherTornado.v1_0_0.Target;
type TargetKind = WeatherTornado.v1_0_0.TargetKind;

/** 竜巻注意情報（目撃情報付き） (VPHW51) → weather-tornado 1.0.0 (docs/conversion/weather-tornado.md). */
export const weatherTornado = documentConverter({ type: 'weather-tornado', version: '1.0.0' }, convertBody);

function convertBody(source: ConversionSource): PublicBody {
  const warnings = source.report.child('Body')?.all('Warning') ?? [];
  const block = (suffix: string) =>
    warnings
      .find((w) => w.attr('type')?.endsWith(suffix))
      ?.all('Item')
      .map(convertTarget) ?? [];
  const witnesses = source.report
    .at('Head/Headline')
    ?.all('Information')
    .filter((info) => info.attr('type') === '竜巻注意情報（目撃情報あり）')
    .flatMap((info) => info.all('Item'))
    .flatMap((item) => item.child('Areas')?.all('Area') ?? [])
    .map((area) => codeName(area));
  return {
    ...(witnesses?.length ? { witnesses } : {}),
    targets: block('（発表細分）'),
    regions: block('（一次細分区域等）'),
    areas: block('（市町村等をまとめた地域等）'),
    cities: block('（市町村等）'),
  };
}

function convertTarget(item: XmlElement): Target {
  const kind = item.child('Kind');
  return {
    ...codeName(item.child('Area')),
    kinds: [{ ...codeName(kind), status: trimmedText(kind?.child('Status')) } as TargetKind],
  };
}
