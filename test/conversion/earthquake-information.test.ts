import { fixtureSchemaTests, goldPairTests } from './gold.ts';

const NEWER_SCHEMA =
  'the official sample is schema 1.0.0; Namazu outputs 1.1.0, whose cancellation body is unchanged';

goldPairTests('earthquake-information', {
  'dmdata-json/sample-telegrams/earthquake-information/vxse53_rjtd_20080614090634.json': {
    '$._schema.version': NEWER_SCHEMA,
    '$.infoKindVersion':
      'PAIRS.md near-miss: the sample says 1.0_1 where every revision of its XML says 1.0_0 (made from a re-issued variant)',
  },
});

fixtureSchemaTests(['VXSE51', 'VXSE52', 'VXSE53', 'VXSE62', 'VZSE40']);
