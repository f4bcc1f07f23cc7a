/**
 * Amendments to the schema package's JSON Schemas (docs/conversion.md "Schema amendments"): each
 * admits one form that JMA sends and the package does not describe yet, and nothing else. The
 * converters write what the XML says; without an amendment such a telegram would fail the check and
 * reach JSON clients not at all.
 */
type Definitions = Record<string, Record<string, unknown>>;
type JsonSchema = { definitions?: Definitions; properties?: Record<string, unknown> };

function definition(schema: JsonSchema, name: string): Record<string, unknown> {
  const found = schema.definitions?.[name];
  if (!found) throw new Error(`schema amendment: no definition ${name}`);
  return found;
}

export const schemaAmendments: Record<string, (schema: JsonSchema) => void> = {
  /**
   * JMA's sample set of December 2024 (revision 241226, VPWW56 島根県土砂災害警報・注意報) titles the
   * 土砂災害 warning `気象警報・注意報（Ｒ０６）（土砂災害）`; its revisions before and after write
   * `…（土砂）`, the only title the package allows. `type` is `Control/Title` as written, so the
   * amendment admits that one title too.
   */
  'weather-warning_1.1.0': (schema) => {
    const type = (schema.properties?.type ?? {}) as { enum?: string[] };
    if (!type.enum) throw new Error('schema amendment: weather-warning type has no enum');
    type.enum = [...type.enum, '気象警報・注意報（Ｒ０６）（土砂災害）'];
  },
  /**
   * 線状降水帯 forecasts (気象解説情報 since 2024, e.g. VPZJ51 全般気象解説情報（線状降水帯半日前予測）)
   * carry an `EventPart` in a time-series property of type 雨の予想; the package allows `eventPart`
   * only under 気象現象の予想. The amendment admits that property in the form the package gives an
   * `eventPart`, with its type 雨の予想.
   */
  'weather-commentary_1.0.0': (schema) => {
    const name = 'WeatherCommentary.TimeSeriesForecastPropertyPrecipitation';
    const precipitation = definition(schema, name);
    const event = definition(schema, 'WeatherCommentary.TimeSeriesForecastPropertyEvent');
    const properties = event.properties as Record<string, unknown>;
    schema.definitions![name] = {
      anyOf: [
        precipitation,
        { ...event, properties: { ...properties, type: { type: 'string', const: '雨の予想' } } },
      ],
    };
  },
};
