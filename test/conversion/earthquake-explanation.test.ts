import { fixtureSchemaTests, goldPairTests } from './gold.ts';

goldPairTests('earthquake-explanation');
fixtureSchemaTests(['VXSE56']);
