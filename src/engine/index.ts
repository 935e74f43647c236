/** The engine API: what src/extension, src/cli and (later) a Language Server adapter use. */
export * from './protocol';
export { Engine, type EngineOptions } from './engine';
export { EngineClient, workerTransport, type EngineTransport } from './client';
export { PathFilter, hasSkippedSegment } from './pathFilter';
export { targetKind, isTargetKind, TARGET_KINDS, type TargetKind } from './targets';
export { liveLookup, snapshotCache, type LiveCache } from './live';
