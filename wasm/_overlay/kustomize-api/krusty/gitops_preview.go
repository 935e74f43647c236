// Added to sigs.k8s.io/kustomize/api/krusty when the kustomize module is compiled
// (scripts/build-wasm.sh): kustomize itself is unchanged otherwise.

package krusty

import (
	"sync"

	"sigs.k8s.io/kustomize/api/internal/plugins/builtinconfig"
)

var nameReferenceKinds = sync.OnceValues(func() (map[string]bool, bool) {
	kinds := map[string]bool{}
	all := false
	note := func(kind string) {
		all = all || kind == ""
		kinds[kind] = true
	}
	for _, nbr := range builtinconfig.MakeDefaultConfig().NameReference {
		note(nbr.Kind)
		for _, fs := range nbr.Referrers {
			note(fs.Kind)
		}
	}
	return kinds, all
})

// NameReferenceKinds lists the kinds kustomize's built-in name references involve, as the object
// referred to or as the one referring (the build in part of the kustomize module refuses files
// holding them); all is set when a reference applies to objects of any kind.
func NameReferenceKinds() (kinds map[string]bool, all bool) {
	return nameReferenceKinds()
}
