import type { CheckContext } from './context';
import { substitutionDisabled, substitutionsInDoc } from '../substitution/scan';

/**
 * `substitution-undefined` and `substitution-invalid`, per Kustomization with `spec.postBuild`:
 * every `${name}` without an operator in what it applies must be defined by `substitute` or a
 * `substituteFrom` source found in the workspace (when a source is not, its keys are unknown and
 * nothing is reported). Objects labelled or annotated `kustomize.toolkit.fluxcd.io/substitute:
 * disabled` are skipped, as Flux does, and so are Kustomizations with no variables at all (Flux
 * substitutes nothing then).
 */
export function checkSubstitutions(ctx: CheckContext): void {
  for (const cluster of ctx.model.clusters) {
    for (const ks of cluster.kustomizations) {
      const vars = ctx.vars(ks);
      if (!vars.enabled || !vars.active) continue;
      const ksLabel = `${ks.applied.namespace}/${ks.applied.name}`;
      const ksDoc = ks.applied.object.doc;
      const seen = new Set<string>();
      for (const applied of ks.applies) {
        const obj = applied.object;
        const subs = substitutionsInDoc(obj.doc);
        if (subs.refs.length === 0 && subs.errors.length === 0) continue;
        if (seen.has(obj.id) || substitutionDisabled(obj)) continue;
        seen.add(obj.id);
        const related = () => ctx.related(ksDoc, ['spec', 'postBuild'], `postBuild of Kustomization ${ksLabel}`);
        const lines = obj.doc.file.lines;
        for (const e of subs.errors) {
          ctx.report(
            'substitution-invalid',
            obj.doc,
            lines.range(e.offset, Math.min(e.offset + 1, obj.doc.file.text.length)),
            `Kustomization ${ksLabel} substitutes variables in this object and fails with "envsubst error: variable substitution failed: ${e.message}". Escape a literal \`\${\` as \`$\${\`, or annotate the object with kustomize.toolkit.fluxcd.io/substitute: disabled.`,
            { related: related() },
          );
        }
        if (!vars.complete) continue;
        for (const r of subs.refs) {
          if (r.tolerant || vars.vars.has(r.name)) continue;
          ctx.report(
            'substitution-undefined',
            obj.doc,
            lines.range(r.start, r.end),
            `\${${r.name}} is not defined by Kustomization ${ksLabel} (postBuild.substitute or substituteFrom). Flux replaces it with an empty string, and with strict substitution (StrictPostBuildSubstitutions) fails the whole Kustomization with "variable not set (strict mode): \\"${r.name}\\"". Define it, or give a default: \${${r.name}:=value}.`,
            { related: related() },
          );
        }
      }
    }
  }
}
