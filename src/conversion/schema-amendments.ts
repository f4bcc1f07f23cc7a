/**
 * Amendments to the schema package's JSON Schemas (docs/conversion.md "Schema amendments"): each
 * admits one form that JMA sends and the package does not describe yet, and nothing else. The
 * converters write what the XML says; without an amendment such a telegram would fail the check and
 * reach JSON clients not at all.
 */
type JsonSchema = { properties?: Record<string, unknown> };

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
};
