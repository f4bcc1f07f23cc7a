import { documentConverter } from '../head.ts';
import { codeName, joinedNotices, NO_WARNING, notes, warningAreas } from '../meteorology.ts';
import type { ConversionSource } from '../types.ts';
import { trimmedText, type XmlElement } from '../xml-element.ts';

/** Body parts only some types carry (the package's types prohibit them elsewhere). */
const EXTRA_PARTS: Readonly<Record<string, readonly string[]>> = {
  VPWW56: ['offices', 'comment'],
  VPWW57: ['stormSurgeSections', 'offices', 'references'],
};

/**
 * 気象警報・注意報（Ｒ０６） (VPWW55–61) and its 集約通報 (VPWS50) → weather-warning 1.1.0
 * (docs/conversion/weather-warning.md).
 */
export const weatherWarning = documentConverter({ type: 'weather-warning', version: '1.1.0' }, convertBody);

function convertBody(source: ConversionSource): object {
  const body = source.report.child('Body');
  const notice = joinedNotices(body);
  const warnings = body?.all('Warning') ?? [];
  const withType = (suffix: string) => warnings.find((w) => w.attr('type')?.endsWith(suffix));
  const extras = new Set(EXTRA_PARTS[source.type] ?? []);
  const sections = withType('（高潮予報区間）')?.all('Item').map(convertStormSurgeSection) ?? [];
  const offices = (body?.at('OfficeInfo')?.all('Office') ?? []).map((office) => ({
    type: office.attr('type') ?? '',
    name: trimmedText(office.child('Name')),
  }));
  const references = (body?.at('AdditionalInfo')?.all('TidalWarningAddition') ?? []).map(convertReference);
  const texts = (body?.at('Comment')?.all('Text') ?? []).map((text) => ({
    type: text.attr('type') ?? '',
    text: text.text.trim(),
  }));
  return {
    ...(notice !== undefined ? { notice } : {}),
    prefectures: warningAreas(withType('（府県予報区等）'), true, convertAreaKind),
    regions: warningAreas(withType('（一次細分区域等）'), true, convertAreaKind),
    areas: warningAreas(withType('（市町村等をまとめた地域等）'), true, convertAreaKind),
    cities: warningAreas(withType('（市町村等）'), false, convertKind),
    ...(extras.has('stormSurgeSections') && sections.length > 0 ? { stormSurgeSections: sections } : {}),
    ...(extras.has('offices') && offices.length > 0 ? { offices } : {}),
    ...(extras.has('references') && references.length > 0 ? { references } : {}),
    ...(extras.has('comment') && texts.length > 0 ? { comment: { texts } } : {}),
  };
}

/**
 * A kind without its forecast properties (prefectures, regions, area groups): code, name, status,
 * `Condition` (氾濫発生), `Addition/Note`s, `LastKind` (with its condition) and `DateTime`, each only
 * when present.
 */
function convertAreaKind(kind: XmlElement) {
  const condition = trimmedText(kind.child('Condition'));
  const dateTime = trimmedText(kind.child('DateTime'));
  const additions = notes(kind.child('Addition'));
  const lastKind = kind.child('LastKind');
  const lastCondition = trimmedText(lastKind?.child('Condition'));
  return {
    ...codeName(kind),
    ...(dateTime !== '' ? { dateTime } : {}),
    ...(condition !== '' ? { condition } : {}),
    status: trimmedText(kind.child('Status')),
    ...(lastKind
      ? { lastKind: { ...codeName(lastKind), ...(lastCondition !== '' ? { condition: lastCondition } : {}) } }
      : {}),
    ...(additions ? { additions } : {}),
  };
}

/** A municipality's (or storm-surge section's) kind: as above with its `Property` list, except when lifted (解除). */
function convertKind(kind: XmlElement) {
  const converted = convertAreaKind(kind);
  if (converted.status === '解除') return converted;
  return { ...converted, properties: kind.all('Property').map(convertProperty) };
}

/** Part element → JSON key; `HumidityPart` repeats, hence an array. */
const PART_KEYS: Readonly<Record<string, string>> = {
  SignificancyPart: 'significancyPart',
  CriteriaPeriod: 'criteriaPeriod',
  WindDirectionPart: 'windDirectionPart',
  WindSpeedPart: 'windSpeedPart',
  VisibilityPart: 'visibilityPart',
  WaveHeightPart: 'waveHeightPart',
  TidalLevelPart: 'tidalLevelPart',
  SnowfallDepthPart: 'snowfallDepthPart',
  EventPart: 'eventPart',
};

/** One `Property`: its `Type` and every part it holds. */
function convertProperty(property: XmlElement): object {
  const converted: Record<string, unknown> = { type: trimmedText(property.child('Type')) };
  const humidityParts = property.all('HumidityPart').map(convertPart);
  for (const part of property.children) {
    const key = PART_KEYS[part.name];
    if (key !== undefined) converted[key] = convertPart(part);
  }
  if (humidityParts.length > 0) converted.humidityParts = humidityParts;
  return converted;
}

/**
 * A part: `base` holds either the values for the whole place or `locals` (one per `Local`, `name`
 * from `AreaName`); each `Becoming` (a change later in the period) is listed in `becomings` with
 * its `TimeModifier`.
 */
function convertPart(part: XmlElement): object {
  const becomings = part.all('Becoming').map((becoming) => ({
    timeModifier: trimmedText(becoming.child('TimeModifier')),
    ...placeValues(becoming),
  }));
  return {
    base: placeValues(part.child('Base')),
    ...(becomings.length > 0 ? { becomings } : {}),
  };
}

function placeValues(element: XmlElement | undefined): object {
  const locals = element?.all('Local') ?? [];
  if (locals.length === 0) return values(element);
  return {
    locals: locals.map((local) => ({ name: trimmedText(local.child('AreaName')), ...values(local) })),
  };
}

/** The values of one place, keyed as the schema names them. */
function values(element: XmlElement | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const snowfallDepths: unknown[] = [];
  for (const child of element?.children ?? []) {
    switch (child.name) {
      case 'Significancy':
        out.significancy = { type: child.attr('type') ?? '', ...codeName(child) };
        break;
      case 'PeakTime': {
        const date = trimmedText(child.child('Date'));
        out.peakTime = { ...(date !== '' ? { date } : {}), term: trimmedText(child.child('Term')) };
        break;
      }
      case 'Attention':
        out.attentions = notes(child) ?? [];
        break;
      case 'Addition':
        out.additions = notes(child) ?? [];
        break;
      case 'Sentence':
        out.sentence = child.text.trim();
        break;
      case 'CriteriaClass':
        out.criterion = codeName(child);
        break;
      case 'Time':
        out.time = child.text.trim();
        break;
      case 'Duration':
        out.duration = child.text.trim();
        break;
      case 'Location':
        out.location = child.text.trim();
        break;
      case 'WindDirection':
        out.direction = valueElement(child);
        break;
      case 'WindSpeed':
        out.speed = valueElement(child);
        break;
      case 'Visibility':
        out.visibility = valueElement(child);
        break;
      case 'WaveHeight':
        out.waveHeight = valueElement(child);
        break;
      case 'TidalLevel':
        out.tidalLevel = valueElement(child);
        break;
      case 'Humidity':
        out.humidity = valueElement(child);
        break;
      case 'SnowfallDepth':
        snowfallDepths.push(valueElement(child));
        break;
      case 'Event':
        out.event = {
          type: child.attr('type') ?? '',
          eventName: trimmedText(child.child('EventName')) || child.text.trim(),
          ...(child.child('Time') ? { time: trimmedText(child.child('Time')) } : {}),
        };
        break;
    }
  }
  if (snowfallDepths.length > 0) out.snowfallDepths = snowfallDepths;
  return out;
}

/** A `jmx_eb` value: type and unit attributes, the value as written (none → null), the `condition` attribute. */
function valueElement(element: XmlElement) {
  const value = element.text.trim();
  const condition = element.attr('condition');
  return {
    type: element.attr('type') ?? '',
    unit: element.attr('unit') ?? '',
    value: value === '' ? null : value,
    ...(condition !== undefined ? { condition } : {}),
  };
}

/** One 高潮予報区間 item: the section (`Area codeType="高潮予報区間"`) with its kind. */
function convertStormSurgeSection(item: XmlElement): object {
  const area = item.child('Area');
  // Members in the field definitions' order: code, codeType, name (codeName gives code and name).
  const { code, name } = codeName(area);
  const head = {
    code,
    codeType: area?.attr('codeType') ?? '高潮予報区間',
    name,
    subCity: { names: list(area?.child('SubCityList')) },
    location: trimmedText(area?.child('Location')),
  };
  const kinds = item.all('Kind').filter((kind) => trimmedText(kind.child('Status')) !== NO_WARNING);
  if (kinds.length === 0) return { ...head, kinds: [], condition: NO_WARNING };
  return { ...head, kinds: kinds.map(convertKind), changeStatus: trimmedText(item.child('ChangeStatus')) };
}

/** A white-space separated list (`SubCityList`, `SubCityCodeList`). */
const list = (element: XmlElement | undefined) => trimmedText(element).split(/\s+/u).filter(Boolean);

/** `TidalWarningAddition`: the section, its charge sections and its water-level stations. */
function convertReference(addition: XmlElement): object {
  const section = addition.child('TidalAreaPart');
  const area = section?.child('Area');
  return {
    ...codeName(area),
    codeType: area?.attr('codeType') ?? '高潮予報区間',
    subCity: { names: list(area?.child('SubCityList')), codes: list(area?.child('SubCityCodeList')) },
    location: trimmedText(area?.child('Location')),
    chargeSections: (section?.all('ChargeSection') ?? []).map((c) => c.text.trim()),
    stations: addition.all('HydrometricStationPart').map((station) => {
      const chargeSections = station.all('ChargeSection').map((c) => c.text.trim());
      return {
        name: trimmedText(station.at('Area/Name')),
        location: trimmedText(station.at('Area/Location')),
        ...(chargeSections.length > 0 ? { chargeSections } : {}),
        criteria: station.all('Criteria').map((criteria) => ({
          waterLevels: criteria.all('WaterLevel').map(valueElement),
        })),
      };
    }),
  };
}
