/**
 * The thread of validate.ts's `compileChecksInBackground`: compiles the check of each schema key it
 * is given (`workerData`), with the options and amendments the process's own checks have, and posts
 * its code (ajv's standalone form) for the process to evaluate. Ends when all are posted.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Ajv } from 'ajv';
import standalone from 'ajv/dist/standalone/index.js';
import { AJV_OPTIONS, jsonSchemaOf, type CompiledCheck } from './validate.ts';

const ajv = new Ajv({ ...AJV_OPTIONS, code: { ...AJV_OPTIONS.code, source: true } });
for (const key of workerData as string[]) {
  const jsonSchema = jsonSchemaOf(key);
  if (!jsonSchema) continue;
  const check: CompiledCheck = { key, code: standalone.default(ajv, ajv.compile(jsonSchema)) };
  parentPort!.postMessage(check);
}
