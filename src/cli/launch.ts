#!/usr/bin/env node
/**
 * The CLI process's entry (dist/cli.js): the watchdog alone, which runs the command in a worker
 * (dist/cli-worker.js, main.ts). The process never runs command code, so it does not load it:
 * the command bundle's compile was ≈ 0.1 s of every command's start, paid twice.
 */
import * as path from 'node:path';
import { runProcess, WORKER_BUNDLE } from './process';

runProcess(path.join(__dirname, WORKER_BUNDLE));
