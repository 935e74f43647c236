import { CONFIG_FILE, sourceRootProblems } from '../model/config';
import type { CheckContext } from './context';

/**
 * `config-invalid`: entries of `.gitops-preview.yaml` the model leaves out (a malformed source key,
 * a folder outside the repository or missing), reported where they are written so a pinned source
 * root that silently does nothing cannot go unnoticed.
 */
export function checkConfig(ctx: CheckContext): void {
  const ws = ctx.model.workspace;
  const doc = ws.files.get(`${ws.root}/${CONFIG_FILE}`)?.docs[0];
  if (!doc) return;
  for (const p of sourceRootProblems(ws)) ctx.report('config-invalid', doc, ['sourceRoots', p.key], `${p.message} This entry is ignored.`);
}
