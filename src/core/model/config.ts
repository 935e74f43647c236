import type { Workspace } from '../workspace/workspace';
import { asRecord } from './objects';
import { normalizeVirtual } from './view';

/** The repository's own GitOps Preview settings file, read by the editor and by `check` in CI. */
export const CONFIG_FILE = '.gitops-preview.yaml';

/** A source key as the settings write it: `Kind/namespace/name`. */
const SOURCE_KEY = /^[A-Za-z]+\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?\/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

export interface ConfigProblem {
  readonly message: string;
}

/**
 * Source roots from `.gitops-preview.yaml` (`sourceRoots: {Kind/namespace/name: folder}`), then
 * from the editor setting `gitopsPreview.sourceRoots` (which wins). Folders are relative to the
 * workspace root and must stay inside it; entries that do not are left out.
 */
export function configuredSourceRoots(ws: Workspace, setting: Readonly<Record<string, string>> | undefined): Map<string, string> {
  const out = new Map<string, string>();
  const add = (entries: Record<string, unknown> | undefined) => {
    for (const [key, folder] of Object.entries(entries ?? {})) {
      if (!SOURCE_KEY.test(key) || typeof folder !== 'string') continue;
      const normalized = normalizeVirtual(folder);
      if (normalized !== undefined) out.set(key, normalized);
    }
  };
  add(asRecord(asRecord(ws.files.get(`${ws.root}/${CONFIG_FILE}`)?.docs[0]?.value)?.sourceRoots));
  add(setting);
  return out;
}

/** Mistakes in `.gitops-preview.yaml`'s `sourceRoots`, for `check` to report. */
export function sourceRootProblems(ws: Workspace): { key: string; message: string }[] {
  const roots = asRecord(asRecord(ws.files.get(`${ws.root}/${CONFIG_FILE}`)?.docs[0]?.value)?.sourceRoots);
  const out: { key: string; message: string }[] = [];
  for (const [key, folder] of Object.entries(roots ?? {})) {
    if (!SOURCE_KEY.test(key)) out.push({ key, message: `'${key}' is not a source key: write Kind/namespace/name, e.g. OCIRepository/flux-system/apps.` });
    else if (typeof folder !== 'string') out.push({ key, message: `The source root of '${key}' must be a folder path (a string).` });
    else if (normalizeVirtual(folder) === undefined) out.push({ key, message: `The source root '${folder}' of '${key}' points outside the repository.` });
    else if (normalizeVirtual(folder) !== '' && !ws.hasDir(`${ws.root}/${normalizeVirtual(folder)}`)) out.push({ key, message: `The source root '${folder}' of '${key}' is not a folder of this repository.` });
  }
  return out;
}
