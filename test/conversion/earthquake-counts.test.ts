import { fixtureSchemaTests, goldPairTests } from './gold.ts';

goldPairTests('earthquake-counts');
fixtureSchemaTests(['VXSE60']);
