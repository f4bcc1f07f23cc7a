import { fixtureSchemaTests, goldPairTests } from './gold.ts';

goldPairTests('earthquake-nankai');
fixtureSchemaTests(['VYSE50', 'VYSE51', 'VYSE52', 'VYSE60']);
