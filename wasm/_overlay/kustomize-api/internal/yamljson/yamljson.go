// Added to sigs.k8s.io/kustomize/api when the kustomize module is compiled (scripts/build-wasm.sh):
// three places that convert YAML to JSON call Convert instead.

// Package yamljson keeps what sigs.k8s.io/yaml's YAMLToJSON made of a text. A long-lived instance
// converts the same texts over and over: every build reads its kustomization files again, and a
// JSON 6902 patch is converted again for every resource it targets. The conversion (go-yaml's
// parse, then JSON) was about a tenth of a build in part.
package yamljson

// maxKeptBytes bounds the texts and their JSON kept; past it the cache starts again.
const maxKeptBytes = 4 << 20

var kept = map[string][]byte{}
var keptBytes int

// Convert is convert(y), answered from the cache when y was converted before. Callers only read
// the JSON (decoders copy what they keep), so one copy serves all.
func Convert(y []byte, convert func([]byte) ([]byte, error)) ([]byte, error) {
	if j, ok := kept[string(y)]; ok {
		return j, nil
	}
	j, err := convert(y)
	if err != nil {
		return j, err
	}
	if keptBytes+len(y)+len(j) > maxKeptBytes {
		kept, keptBytes = map[string][]byte{}, 0
	}
	kept[string(y)] = j
	keptBytes += len(y) + len(j)
	return j, nil
}
