import type { WeatherLandslide } from '@dmdata/telegram-json-types';
import { documentConverter } from '../head.ts';
import { codeName } from '../meteorology.ts';
import type { ConversionSource } from '../types.ts';
import { trimmedText } from '../xml-element.ts';

type PublicBody = WeatherLandslide.v1_0_0.PublicBody;
type City = WeatherLandslide.v1_0_0.City;
type CityKind = WeatherLandslide.v1_0_0.CityKind;
type Office = WeatherLandslide.v1_0_0.Office;

/** 土砂災害警戒情報 (VXWW50) → weather-landslide 1.0.0 (docs/conversion/weather-landslide.md). */
export const weatherLandslide = documentConverter(
  { type: 'weather-landslide', version: '1.0.0' },
  convertBody,
);

function convertBody(source: ConversionSource): PublicBody {
  const body = source.report.child('Body');
  const items = body?.all('Warning').flatMap((warning) => warning.all('Item')) ?? [];
  return {
    target: codeName(body?.child('TargetArea')),
    cities: items.map((item): City => ({
      ...codeName(item.child('Area')),
      kinds: [
        {
          ...codeName(item.child('Kind')),
          status: trimmedText(item.child('Kind')?.child('Status')),
        } as CityKind,
      ],
    })),
    offices: (body?.at('OfficeInfo')?.all('Office') ?? []).map((office): Office => ({
      type: (office.attr('type') ?? '') as Office['type'],
      name: trimmedText(office.child('Name')),
      contact: trimmedText(office.child('ContactInfo')),
    })),
  };
}
