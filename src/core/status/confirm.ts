/**
 * `gitopsPreview.confirmWritesForContexts`: glob patterns (`*` any run of characters, `?` one) of
 * kube contexts whose writes need a confirmation dialog. Default ["*"]: every context asks.
 */
export const DEFAULT_CONFIRM_PATTERNS: readonly string[] = ['*'];

export function globToRegExp(pattern: string): RegExp {
  const body = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}

/** Whether a write to `context` must be confirmed; a non-array setting falls back to always asking. */
export function needsConfirmation(context: string, patterns: unknown): boolean {
  const list = Array.isArray(patterns) ? patterns.filter((p): p is string => typeof p === 'string') : DEFAULT_CONFIRM_PATTERNS;
  return list.some((p) => globToRegExp(p.trim()).test(context));
}
