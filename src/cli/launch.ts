#!/usr/bin/env node
/**
 * The CLI process's entry (dist/cli.js): the watchdog alone, which runs the command in a worker
 * (dist/cli-worker.js, main.ts). The process never runs command code, so it does not load it:
 * the command bundle's compile was ≈ 0.1 s of every command's start, paid twice. The worker
 * starts here too, and loads the command bundle with V8's code cache (node/codeCache.ts).
 */
import * as path from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { runProcess, WORKER_BUNDLE } from './process';
import { requireWithCodeCache } from '../node/codeCache';

if (isMainThread) runProcess(__filename);
else requireWithCodeCache(path.join(__dirname, WORKER_BUNDLE));
