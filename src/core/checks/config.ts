import { CONFIG_FILE, repositorySettings, sourceRootProblems } from '../model/config';
import type { CheckContext } from './context';
import { directivesOf } from './suppress';
import { declaredBootstrap } from '../bootstrap/declared';

/**
 * `config-invalid`: entries of `.gitops-preview.yaml` the model leaves out (a malformed source key,
 * a folder outside the repository or missing), reported where they are written so a pinned source
 * root that silently does nothing cannot go unnoticed.
 */
export function checkConfig(ctx: CheckContext): void {
  const ws = ctx.model.workspace;
  const doc = ws.files.get(`${ws.root}/${CONFIG_FILE}`)?.docs[0];
  if (!doc) return checkDirectives(ctx);
  checkDirectives(ctx);
  for (const p of sourceRootProblems(ws)) ctx.report('config-invalid', doc, ['sourceRoots', p.key], `${p.message} This entry is ignored.`);
  for (const p of repositorySettings(ws).problems) ctx.report('config-invalid', doc, p.path, `${p.message} This entry is ignored.`);
  const declared = declaredBootstrap(ws);
  for (const p of declared.problems) ctx.report('config-invalid', doc, p.path, `${p.message} This entry is ignored.`);
  const clusters = ctx.model.clusters.map((c) => c.name);
  for (const r of declared.clusterRefs) {
    if (!clusters.includes(r.name)) ctx.report('config-invalid', doc, r.path, `'${r.name}' is not a cluster of this repository (it has ${clusters.join(', ') || 'none'}), so this \`bootstrap\` entry counts for no cluster.`);
  }
}

/** Inline `# gitops-preview:` directives that ignore nothing because they are malformed. */
export function checkDirectives(ctx: CheckContext): void {
  for (const file of ctx.model.workspace.files.values()) {
    const doc = file.docs[0];
    if (!doc) continue;
    for (const d of directivesOf(file)) {
      if (!d.problem) continue;
      const lineText = file.text.split('\n', d.line + 1)[d.line] ?? '';
      const start = { line: d.line, character: lineText.indexOf('#') };
      ctx.report('config-invalid', doc, { start, end: { line: d.line, character: lineText.length } }, d.problem);
    }
  }
}
