// Added to sigs.k8s.io/kustomize/api/types when the kustomize module is compiled
// (scripts/build-wasm.sh, go build -overlay): kustomize itself is unchanged otherwise.

package types

// SkipTransformerAnnotations tells the build that its top kustomization does not ask for
// `buildMetadata: [transformerAnnotations]`, so the transformations kustomize records on every
// resource after every transformer would be removed again at the end of the build. Recording them
// (parse, append, serialise an annotation per resource and transformer) took about a tenth of the
// build time of a repository with components and patches. Origins are still recorded.
var SkipTransformerAnnotations bool
