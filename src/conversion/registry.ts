import { earthquakeHypocenterUpdate } from './schemas/earthquake-hypocenter-update.ts';
import { earthquakeInformation } from './schemas/earthquake-information.ts';
import type { Converter } from './types.ts';

/**
 * The one table from JMA data type code to its converter and schema version (docs/conversion.md).
 * A type not listed here has no JSON conversion.
 */
const converters: Readonly<Record<string, Converter>> = {
  VXSE51: earthquakeInformation,
  VXSE52: earthquakeInformation,
  VXSE53: earthquakeInformation,
  VXSE61: earthquakeHypocenterUpdate,
  VXSE62: earthquakeInformation,
  VZSE40: earthquakeInformation,
};

export function converterFor(type: string): Converter | undefined {
  return Object.hasOwn(converters, type) ? converters[type] : undefined;
}

/** Every data type code with a converter (for docs, metrics and rebuilds). */
export function convertibleTypes(): string[] {
  return Object.keys(converters).sort();
}
