/**
 * The engine worker's entry (dist/engineWorker.js): loads the engine's bundle (dist/engineWorkerBundle.js,
 * worker.ts) with V8's code cache, so a window's start does not compile its megabytes again.
 */
import * as path from 'node:path';
import { requireWithCodeCache } from '../node/codeCache';

requireWithCodeCache(path.join(__dirname, 'engineWorkerBundle.js'));
