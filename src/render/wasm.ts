/** The render layer's view of the WebAssembly engine: its failures as RenderErrors. */
import type { WasmFailureKind, WasmResult } from '../engine/wasm/host';
import type { Result } from '../core/result';
import { fail, ok, type RenderError, type RenderErrorKind } from './errors';

const KINDS: Record<WasmFailureKind, RenderErrorKind> = {
  failed: 'build-failed',
  panic: 'build-failed',
  crashed: 'build-failed',
  timeout: 'timeout',
  cancelled: 'cancelled',
  'missing-module': 'missing-binary',
};

/**
 * `what` names the step for the message ("kustomize build", "helm template"); `note` is added to a
 * failure's message (files the build was not given, say).
 */
export function fromWasm(result: WasmResult, label: string, what: string, note?: string): Result<string, RenderError> {
  if (result.ok) return ok(result.output);
  const detail = result.kind === 'failed' ? `${what} failed: ${result.message}` : result.message;
  return fail(KINDS[result.kind], `${label}: ${detail}${note ? `\n${note}` : ''}`, result.kind === 'failed' ? result.message : undefined);
}
