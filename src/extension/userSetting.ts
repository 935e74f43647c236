/**
 * Path settings that choose a binary or a kubeconfig (and so, through exec credential plugins, a
 * command) are taken from the user's own settings only. The manifest declares them `machine`
 * settings, which VS Code does not take from a workspace; reading the user's value alone keeps
 * that true wherever a workspace or folder value is written, trusted or not. No `vscode` import:
 * callers pass `vscode.workspace.getConfiguration('gitopsPreview')`.
 */
export type UserPathSetting = 'kubeconfig';

export interface InspectableConfiguration {
  inspect<T>(key: string): { globalValue?: T } | undefined;
}

export function userPathSetting(config: InspectableConfiguration, key: UserPathSetting): string | undefined {
  const v = config.inspect<unknown>(key)?.globalValue;
  return typeof v === 'string' ? v.trim() || undefined : undefined;
}
