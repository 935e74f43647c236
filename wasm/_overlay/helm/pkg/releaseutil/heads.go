package releaseutil

// SortManifests reads each manifest's head (kind, name, hook annotations) by converting the whole
// document to JSON. unmarshalHead converts it once without a target and keeps that JSON, so the
// helm module can hand the render's objects over as data instead of the host parsing the YAML
// again (a CRD chart's output is megabytes). The JSON is of the document as the release manifest
// holds it, followed by a line break (SplitManifests trimmed it; a block scalar at its end keeps
// that break when Kubernetes reads the manifest). The head is then decoded from that JSON, and
// helm's own call decides wherever the two could differ, so the head and any error are helm's:
//   - sigs.k8s.io/yaml's target-guided conversion turns a number or boolean into the head's
//     string; without a target it stays one and fails to decode;
//   - the line break changes only a block scalar ending the document, by one more break.

import (
	"encoding/json"
	"strings"

	"sigs.k8s.io/yaml"
)

// KeptJSON, when not nil, receives each manifest's JSON (DocumentJSON) by its trimmed text
// (scripts/build-wasm.sh redirects manifestFile.sort's yaml.Unmarshal here; the helm module sets
// and clears it).
var KeptJSON map[string][]byte

func unmarshalHead(m string, entry *SimpleHead) error {
	if j, err := DocumentJSON(m + "\n"); err == nil {
		var head SimpleHead
		if json.Unmarshal(j, &head) == nil && !endsInLineBreak(head) {
			*entry = head
			if KeptJSON != nil {
				KeptJSON[m] = j
			}
			return nil
		}
	}
	return yaml.Unmarshal([]byte(m), entry)
}

func endsInLineBreak(h SimpleHead) bool {
	broken := func(s string) bool { return strings.HasSuffix(s, "\n") }
	if broken(h.Version) || broken(h.Kind) {
		return true
	}
	if h.Metadata == nil {
		return false
	}
	if broken(h.Metadata.Name) {
		return true
	}
	for k, v := range h.Metadata.Annotations {
		if broken(k) || broken(v) {
			return true
		}
	}
	return false
}
