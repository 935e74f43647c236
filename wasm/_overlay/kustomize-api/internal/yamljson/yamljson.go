// Added to sigs.k8s.io/kustomize/api when the kustomize module is compiled (scripts/build-wasm.sh):
// three places that convert YAML to JSON call Convert instead, and the configuration of the built-in
// plugins calls MarshalYAML.

// Package yamljson keeps what sigs.k8s.io/yaml's conversions made of a text. A long-lived instance
// converts the same texts over and over: every build reads its kustomization files again, a JSON
// 6902 patch is converted again for every resource it targets, and every kustomization configures
// the built-in plugins (namespace, patches...) with settings that other builds used before. Those
// conversions (go-yaml's parse, then JSON; JSON, then go-yaml's output) were about a tenth of a
// build in part, and a sixth of configuring the plugins in a cold build.
package yamljson

import (
	"encoding/json"
	"fmt"
)

// maxKeptBytes bounds the texts and their conversions kept by each cache; past it the cache starts again.
const maxKeptBytes = 4 << 20

// cache maps a text to what one conversion made of it.
type cache struct {
	kept  map[string][]byte
	bytes int
}

// YAML to JSON, and JSON to YAML: apart, since a JSON text is YAML too.
var toJSON, toYAML = &cache{kept: map[string][]byte{}}, &cache{kept: map[string][]byte{}}

func (c *cache) convert(in []byte, convert func([]byte) ([]byte, error)) ([]byte, error) {
	if out, ok := c.kept[string(in)]; ok {
		return out, nil
	}
	out, err := convert(in)
	if err != nil {
		return out, err
	}
	if c.bytes+len(in)+len(out) > maxKeptBytes {
		c.kept, c.bytes = map[string][]byte{}, 0
	}
	c.kept[string(in)] = out
	c.bytes += len(in) + len(out)
	return out, nil
}

// Convert is convert(y) (sigs.k8s.io/yaml's YAMLToJSON), answered from the cache when y was
// converted before. Callers only read the JSON (decoders copy what they keep), so one copy serves all.
func Convert(y []byte, convert func([]byte) ([]byte, error)) ([]byte, error) {
	return toJSON.convert(y, convert)
}

// MarshalYAML is sigs.k8s.io/yaml's Marshal (o as JSON, then jsonToYAML of it), with the YAML kept
// by the JSON. Its callers hand the YAML to a plugin's Config, which only reads it.
func MarshalYAML(o interface{}, jsonToYAML func([]byte) ([]byte, error)) ([]byte, error) {
	j, err := json.Marshal(o)
	if err != nil {
		return nil, fmt.Errorf("error marshaling into JSON: %w", err)
	}
	return toYAML.convert(j, jsonToYAML)
}
