import { findingMessage } from './message';
import type { CheckContext } from './context';
import type { KubeObject } from '../model/objects';
import type { SubstituteVars } from '../substitution/resolve';
import { substitutionDisabled, substitutionsInDoc } from '../substitution/scan';
import type { Diagnostic } from './types';
import { MAX_SUBSTITUTION_DEPTH } from '../substitution/parse';
import type { PathSegment, YamlDoc } from '../yaml/document';
import { isMap, isPair, isScalar, isSeq, type Node } from 'yaml';

/**
 * Findings of one Kustomization, reused across model rebuilds (one per keystroke) while its
 * document, variables and applied documents are the very same parsed objects.
 */
const previous = new WeakMap<KubeObject, { label: string; vars: SubstituteVars; objects: KubeObject[]; found: Diagnostic[] }>();

function sameObjects(a: KubeObject[], b: { object: KubeObject }[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i].object) return false;
  return true;
}

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
      const cached = previous.get(ks.applied.object);
      if (cached && cached.vars === vars && cached.label === ksLabel && sameObjects(cached.objects, ks.applies)) {
        ctx.diagnostics.push(...cached.found);
        continue;
      }
      const before = ctx.diagnostics.length;
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
          if (e.limit) {
            ctx.report(
              'substitution-invalid',
              obj.doc,
              lines.range(e.offset, Math.min(e.offset + 1, obj.doc.file.text.length)),
              findingMessage(
                `This value nests \${…} more than ${MAX_SUBSTITUTION_DEPTH} levels deep: its variables are not checked here and the object is not built.`,
                `Kustomization ${ksLabel} substitutes variables in this object, and this value has ${e.message}: past ${MAX_SUBSTITUTION_DEPTH} levels GitOps Preview does not read a substitution (Flux does).`,
              ),
              { severity: 'warning', related: related() },
            );
            continue;
          }
          ctx.report(
            'substitution-invalid',
            obj.doc,
            lines.range(e.offset, Math.min(e.offset + 1, obj.doc.file.text.length)),
            findingMessage(
              `Flux cannot substitute this value: escape a literal \`\${\` as \`$\${\`, or annotate the object with kustomize.toolkit.fluxcd.io/substitute: disabled.`,
              `Kustomization ${ksLabel} substitutes variables in this object and fails with "envsubst error: variable substitution failed: ${e.message}".`,
            ),
            { related: related() },
          );
        }
        if (!vars.complete) continue;
        for (const r of subs.refs) {
          if (r.tolerant || vars.vars.has(r.name)) continue;
          if (obj.rendered && removedByBuild(obj, r.start)) continue;
          ctx.report(
            'substitution-undefined',
            obj.doc,
            lines.range(r.start, r.end),
            findingMessage(
              `\${${r.name}} is not defined by Kustomization ${ksLabel}: define it in postBuild, or give a default: \${${r.name}:=value}.`,
              `Neither postBuild.substitute nor substituteFrom defines it. Flux replaces it with an empty string, and with strict substitution (StrictPostBuildSubstitutions) fails the whole Kustomization with "variable not set (strict mode): \\"${r.name}\\"".`,
            ),
            { related: related() },
          );
        }
      }
      previous.set(ks.applied.object, { label: ksLabel, vars, objects: ks.applies.map((a) => a.object), found: ctx.diagnostics.slice(before) });
    }
  }
}

/**
 * Whether the Kustomization's build (kustomize, its `spec.patches` and components: what Flux
 * substitutes in) no longer has the source node holding `offset`: a variable a patch removed is
 * never substituted. Only a node gone from the built object counts; one still there, or one that
 * cannot be told (a variable in a key), is checked as written.
 */
function removedByBuild(obj: KubeObject, offset: number): boolean {
  const path = pathAt(obj.doc, offset);
  if (!path) return false;
  let value: unknown = obj.body;
  for (const seg of path) {
    if (Array.isArray(value) && typeof seg === 'number') value = value[seg];
    else if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, seg)) value = (value as Record<string, unknown>)[seg];
    else return true;
    if (value === undefined) return true;
  }
  return false;
}

/** The path of the value node holding `offset` in a document; undefined inside a key or outside any value. */
function pathAt(doc: YamlDoc, offset: number): PathSegment[] | undefined {
  const path: PathSegment[] = [];
  const within = (n: unknown): n is Node => {
    const range = (n as Node | null | undefined)?.range;
    return !!range && range[0] <= offset && offset < range[1];
  };
  let current: unknown = doc.node.contents;
  for (;;) {
    if (!within(current)) return undefined;
    if (isScalar(current)) return path;
    if (isMap(current)) {
      const pair = current.items.find((p) => isPair(p) && within(p.value));
      if (!pair || !isScalar(pair.key)) return undefined;
      path.push(String(pair.key.value));
      current = pair.value;
    } else if (isSeq(current)) {
      const i = current.items.findIndex((item) => within(item));
      if (i === -1) return undefined;
      path.push(i);
      current = current.items[i];
    } else return undefined;
  }
}
