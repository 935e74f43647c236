// Added to sigs.k8s.io/kustomize/api/internal/target when the kustomize module is compiled
// (scripts/build-wasm.sh, go build -overlay); multitransformer.go calls it instead of
// ResMap.AddTransformerAnnotation.

package target

import (
	"sigs.k8s.io/kustomize/api/internal/utils"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
)

// addTransformerAnnotation is ResMap.AddTransformerAnnotation, without the transformation record
// when the build drops it anyway (types.SkipTransformerAnnotations): a resource without an origin
// still gets the transformer's, as kustomize gives it.
func addTransformerAnnotation(m resmap.ResMap, origin *resource.Origin) error {
	if !types.SkipTransformerAnnotations {
		return m.AddTransformerAnnotation(origin)
	}
	for _, res := range m.Resources() {
		if _, ok := res.GetAnnotations()[utils.OriginAnnotationKey]; ok {
			continue
		}
		if err := res.SetOrigin(origin); err != nil {
			return err
		}
	}
	return nil
}
