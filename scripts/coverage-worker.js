// A worker thread of scripts/coverage.js: reads its share of the raw coverage files and posts what
// they say back.
import { parentPort, workerData } from 'node:worker_threads';
import { readRawCoverage } from './coverage.js';

parentPort.postMessage(readRawCoverage(workerData.paths, workerData.root));
