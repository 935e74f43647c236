// Added to sigs.k8s.io/kustomize/api/internal/plugins/builtinconfig when the kustomize module is
// compiled (scripts/build-wasm.sh renames kustomize's Merge to mergeFieldSpecs): kustomize itself
// is unchanged otherwise.

package builtinconfig

import "sigs.k8s.io/kustomize/api/types"

// A merge's result depends only on the two configurations' contents, and a build merges the same
// few over and over (every kustomization and component merges the default configuration into its
// accumulator, then into its parent's): merging field specs one by one against all the others
// was a sixth of a build. Recent merges are kept by content and handed out as copies, errors
// included; copies keep nil slices nil, so a kept answer is the one mergeFieldSpecs gives.
type keptMerge struct {
	t, input, merged *TransformerConfig
	err              error
}

var keptMerges []keptMerge

const keptMergesLimit = 16

// Merge is kustomize's merge of two transformer configurations.
func (t *TransformerConfig) Merge(input *TransformerConfig) (*TransformerConfig, error) {
	if input == nil || t == nil {
		return t.mergeFieldSpecs(input)
	}
	for _, k := range keptMerges {
		if sameConfig(k.t, t) && sameConfig(k.input, input) {
			if k.err != nil {
				return nil, k.err
			}
			return copyConfig(k.merged), nil
		}
	}
	merged, err := t.mergeFieldSpecs(input)
	k := keptMerge{t: copyConfig(t), input: copyConfig(input), err: err}
	if err == nil {
		k.merged = copyConfig(merged)
	}
	if len(keptMerges) >= keptMergesLimit {
		keptMerges = keptMerges[1:]
	}
	keptMerges = append(keptMerges, k)
	return merged, err
}

func fieldSpecSlices(c *TransformerConfig) [10]*types.FsSlice {
	return [10]*types.FsSlice{&c.NamePrefix, &c.NameSuffix, &c.NameSpace, &c.CommonLabels, &c.Labels,
		&c.TemplateLabels, &c.CommonAnnotations, &c.VarReference, &c.Images, &c.Replicas}
}

func sameConfig(a, b *TransformerConfig) bool {
	as, bs := fieldSpecSlices(a), fieldSpecSlices(b)
	for i := range as {
		if !sameFieldSpecs(*as[i], *bs[i]) {
			return false
		}
	}
	if (a.NameReference == nil) != (b.NameReference == nil) || len(a.NameReference) != len(b.NameReference) {
		return false
	}
	for i, x := range a.NameReference {
		y := b.NameReference[i]
		if x.Gvk != y.Gvk || !sameFieldSpecs(x.Referrers, y.Referrers) {
			return false
		}
	}
	return true
}

func sameFieldSpecs(a, b types.FsSlice) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func copyFieldSpecs(s types.FsSlice) types.FsSlice {
	if s == nil {
		return nil
	}
	return append(make(types.FsSlice, 0, len(s)), s...)
}

func copyConfig(c *TransformerConfig) *TransformerConfig {
	out := &TransformerConfig{}
	from, to := fieldSpecSlices(c), fieldSpecSlices(out)
	for i := range from {
		*to[i] = copyFieldSpecs(*from[i])
	}
	if c.NameReference != nil {
		out.NameReference = make(nbrSlice, len(c.NameReference))
		for i, n := range c.NameReference {
			out.NameReference[i] = NameBackReferences{Gvk: n.Gvk, Referrers: copyFieldSpecs(n.Referrers)}
		}
	}
	return out
}
