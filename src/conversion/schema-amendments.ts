/**
 * Amendments to the schema package's JSON Schemas (docs/conversion.md "Schema amendments"): each
 * admits one form that JMA sends and the package does not describe yet, and nothing else. The
 * converters write what the XML says; without an amendment such a telegram would fail the check and
 * reach JSON clients not at all.
 */
type Definitions = Record<string, Record<string, unknown>>;
type JsonSchema = {
  definitions?: Definitions;
  properties?: Record<string, unknown>;
  anyOf?: { $ref?: string }[];
};

/** Adds `values` to an enum of the schema (a property or a definition, named `where` in errors). */
function extendEnum(node: Record<string, unknown> | undefined, where: string, values: string[]): void {
  if (!node || !Array.isArray(node.enum)) throw new Error(`schema amendment: ${where} is not an enum`);
  node.enum = [...(node.enum as unknown[]), ...values];
}

/**
 * Admits these `infoType`s wherever the schema's documents (the schema itself, or each telegram form
 * of its `anyOf`) lack them. The body is not touched: a cancellation of these telegrams has the body
 * of an issue (docs/conversion.md "Cancellations"), as a correction has.
 */
const admitting =
  (infoTypes: readonly string[]) =>
  (schema: JsonSchema): void => {
    const forms = schema.anyOf
      ? schema.anyOf.map(({ $ref }) => schema.definitions?.[$ref?.replace('#/definitions/', '') ?? ''])
      : [schema];
    for (const form of forms) {
      const properties = form?.properties as Record<string, Record<string, unknown>> | undefined;
      const infoType = properties?.infoType;
      if (!properties || !infoType) throw new Error('schema amendment: a form without infoType');
      const allowed = Array.isArray(infoType.enum) ? (infoType.enum as unknown[]) : [infoType.const];
      const missing = infoTypes.filter((t) => !allowed.includes(t));
      if (missing.length > 0) properties.infoType = { type: 'string', enum: [...allowed, ...missing] };
    }
  };
const admitCancellation = admitting(['取消']);

/** A `{type: 深さ, unit: km}` depth with this value and condition (and nothing else). */
const exceptionalDepth = (value: Record<string, unknown>, condition: string) => ({
  type: 'object',
  properties: {
    type: { const: '深さ' },
    unit: { const: 'km' },
    value,
    condition: { const: condition },
  },
  additionalProperties: false,
  required: ['type', 'unit', 'value', 'condition'],
});

export const schemaAmendments: Record<string, (schema: JsonSchema) => void> = {
  /**
   * The production service documents the EEW depth as the Earthquake component's: a value of 0 or
   * 700 carries the condition ごく浅い or ７００ｋｍ以上, and a depth JMA does not give is `null` with
   * 不明. The package's EEW depth is a bare string; the amendment admits these three forms alone.
   */
  'eew-information_1.0.0': (schema) => {
    const hypocenter = schema.definitions?.['EewInformation.EarthquakeHypocenter'];
    const properties = hypocenter?.properties as Record<string, unknown> | undefined;
    if (!properties?.depth) throw new Error('schema amendment: EarthquakeHypocenter has no depth');
    properties.depth = {
      anyOf: [
        properties.depth,
        exceptionalDepth({ const: '0' }, 'ごく浅い'),
        exceptionalDepth({ const: '700' }, '７００ｋｍ以上'),
        exceptionalDepth({ type: 'null' }, '不明'),
      ],
    };
  },
  /**
   * JMA's schema gives every seismic telegram's Comments the same children, and the production
   * service lists `comments.var` for the whole schema; the package leaves it out of VXSE51/52. A
   * VarComment there is admitted as VXSE53's.
   */
  'earthquake-information_1.1.0': (schema) => {
    const comments = (name: string) =>
      schema.definitions?.[`EarthquakeInformation.${name}`]?.properties as
        Record<string, unknown> | undefined;
    const vxse53 = comments('CommentsVXSE53');
    const vxse51Or52 = comments('CommentsVXSE51Or52');
    if (!vxse53?.var || !vxse51Or52) throw new Error('schema amendment: earthquake-information comments');
    vxse51Or52.var = vxse53.var;
  },
  /**
   * VTSE52 estimations: JMA always gives the coast's estimated arrival (`FirstHeight/ArrivalTime`)
   * and adds `Condition` 早いところでは既に津波到達と推定 only when the coast may be reached before
   * it; the production service documents `arrivalTime` as always present and `condition` as
   * conditional. The package requires `condition`; the amendment admits the arrival time without it.
   */
  'tsunami-information_1.1.0': (schema) => {
    const definitions = schema.definitions;
    const firstHeight = definitions?.['TsunamiInformation.TsunamiEstimationFirstHeight'];
    const properties = firstHeight?.properties as Record<string, unknown> | undefined;
    if (!definitions || !properties?.arrivalTime || !properties.revise) {
      throw new Error('schema amendment: TsunamiEstimationFirstHeight');
    }
    definitions['TsunamiInformation.TsunamiEstimationFirstHeight'] = {
      anyOf: [
        firstHeight,
        {
          type: 'object',
          properties: { arrivalTime: properties.arrivalTime, revise: properties.revise },
          additionalProperties: false,
          required: ['arrivalTime'],
        },
      ],
    };
  },
  /**
   * JMA's sample set of December 2024 (revision 241226, VPWW56 島根県土砂災害警報・注意報) titles the
   * 土砂災害 warning `気象警報・注意報（Ｒ０６）（土砂災害）`; its revisions before and after write
   * `…（土砂）`, the only title the package allows. `type` is `Control/Title` as written, so the
   * amendment admits that one title too.
   */
  'weather-warning_1.1.0': (schema) => {
    extendEnum(schema.properties?.type as Record<string, unknown> | undefined, 'type', [
      '気象警報・注意報（Ｒ０６）（土砂災害）',
    ]);
    admitCancellation(schema);
  },
  /**
   * JMA's sample set of October 2024 (revision 241031, VPFJ51 東京都気象解説情報（台風第１３号）) writes
   * the 情報タグ 雷, which the package's tag list lacks (its revision of June 2025 writes 落雷 for
   * the same telegram). `tagNames` are the tags as written, so the amendment admits 雷.
   */
  'weather-commentary_1.0.0': (schema) => {
    extendEnum(schema.definitions?.['WeatherCommentary.InformationTagNames'], 'InformationTagNames', ['雷']);
    admitCancellation(schema);
  },
  /**
   * JMA withdraws a telegram of any type with InfoType 取消, and the production service converts it
   * like any other: the package's schemas below have no 取消 (weather-warning 1.0.0: VPWW54's form),
   * so each admits it, with the body of an issue.
   */
  'forecast-2week-temperature_1.0.0': admitCancellation,
  'forecast-prefecture_1.0.0': admitCancellation,
  'forecast-season_1.0.0': admitCancellation,
  'forecast-warning-possibility_1.0.0': admitCancellation,
  'forecast-warning-possibility_1.1.0': admitCancellation,
  'forecast-weathermap_1.0.0': admitCancellation,
  'weather-early_1.0.0': admitCancellation,
  /**
   * weather-landslide admits 発表 alone: a correction (訂正) of a 土砂災害警戒情報, which JMA issues
   * as of any other telegram, would otherwise reach JSON clients not at all either.
   */
  'weather-landslide_1.0.0': admitting(['訂正', '取消']),
  'weather-tornado_1.0.0': admitCancellation,
  'weather-warning_1.0.0': admitCancellation,
  'weather-warning-timeseries_1.0.0': admitCancellation,
};
