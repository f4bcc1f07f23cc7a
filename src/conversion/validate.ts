import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import { workerLoadCode } from '../worker-code.ts';
import { schemaAmendments } from './schema-amendments.ts';
import type { SchemaRef } from './types.ts';

const require = createRequire(import.meta.url);
// Without ajv's optimising passes over the generated code: compiling takes about 40 % less (the
// early-warning schema 85 ms instead of 125, the first time a process meets one), and validating the
// shared fixtures' conversions took no longer (25–27 µs a document against 30–31).
export const AJV_OPTIONS: Options = { allErrors: false, strict: false, code: { optimize: false } };
const ajv = new Ajv(AJV_OPTIONS);
const compiled = new Map<string, ValidateFunction | null>();

/** The key of a schema of the package: its file's name, `eew-information_1.0.0`. */
const keyOf = (schema: SchemaRef) => `${schema.type}_${schema.version}`;

/**
 * Checks a converted document against the schema package's JSON Schema for the version it claims.
 * Returns null when valid, else a short reason. Schemas are compiled once, on first use (or ahead,
 * compileChecksInBackground).
 */
export function schemaViolation(schema: SchemaRef, document: unknown): string | null {
  const key = keyOf(schema);
  let validate = compiled.get(key);
  if (validate === undefined) {
    const jsonSchema = jsonSchemaOf(key);
    validate = jsonSchema && ajv.compile(jsonSchema);
    compiled.set(key, validate);
  }
  if (validate === null) return `no JSON Schema ${key} in the schema package`;
  if (validate(document)) return null;
  const first = validate.errors?.[0];
  return first ? `${first.instancePath || '/'} ${first.message ?? 'is invalid'}` : 'invalid';
}

/** The package's JSON Schema of `key`, amended (schema-amendments.ts); null when it has none. */
export function jsonSchemaOf(key: string): object | null {
  if (!/^[a-z0-9-]+_\d+\.\d+\.\d+$/.test(key)) return null;
  let jsonSchema: object;
  try {
    jsonSchema = require(`@dmdata/telegram-json-types/dist/jschema/${key}.json`) as object;
  } catch {
    return null;
  }
  const amend = schemaAmendments[key];
  if (amend) {
    // A copy: the package's object stays as published for anyone else requiring it.
    jsonSchema = structuredClone(jsonSchema);
    amend(jsonSchema);
  }
  return jsonSchema;
}

/** What validator-worker.ts posts for each schema: ajv's code of its check, as a CommonJS module. */
export interface CompiledCheck {
  key: string;
  code: string;
}

/**
 * Compiles the checks of `schemas` in a thread of its own (validator-worker.ts), so that the first
 * telegram of each that this process converts does not wait for ajv to write and compile its code
 * (0.05–0.2 s a schema, on the thread that ingests): the thread posts each check's code, and this
 * one only evaluates it. A check compiled here meanwhile is kept. Resolves with the keys of the
 * checks the thread gave, once it has ended.
 */
export function compileChecksInBackground(schemas: readonly SchemaRef[]): Promise<string[]> {
  const keys = [...new Set(schemas.map(keyOf))].filter((key) => !compiled.has(key));
  if (keys.length === 0) return Promise.resolve([]);
  const given: string[] = [];
  let failure: unknown;
  // It ends by itself once it has posted them (a second at most), so it may hold the process.
  const worker = new Worker(workerLoadCode(import.meta.url, 'validator-worker'), {
    eval: true,
    workerData: keys,
  });
  worker.on('message', ({ key, code }: CompiledCheck) => {
    if (compiled.has(key)) return;
    try {
      const module = { exports: {} as { default?: ValidateFunction } };
      // The code ajv would have compiled here itself (its standalone form), of the package's schemas.
      new Function('module', 'exports', 'require', code)(module, module.exports, require);
      if (typeof module.exports.default !== 'function') throw new Error(`no check in the code of ${key}`);
      compiled.set(key, module.exports.default);
      given.push(key);
    } catch (err) {
      // That check is compiled here at its first use, as without this thread.
      failure ??= err;
    }
  });
  return new Promise((resolve, reject) => {
    worker.on('error', (err) => (failure ??= err));
    worker.on('exit', () => (failure === undefined ? resolve(given) : reject(failure)));
  });
}
