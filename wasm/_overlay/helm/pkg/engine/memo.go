package engine

// toYaml and fromYaml answered from what the instance computed before (scripts/build-wasm.sh
// renames helm's own functions to helmToYAML and helmFromYAML). bjw-s' common library converts
// the same values between YAML and maps many times in a render, and an edit renders mostly the
// same values again: these conversions were two thirds of an app-template render's time in
// WebAssembly. Both are pure functions of their input, so the answers are helm's:
//   - toYaml is sigs.k8s.io/yaml.Marshal, json.Marshal then JSONToYAML; the JSON is the key, and
//     only JSONToYAML (a YAML parse and a YAML emit) is kept.
//   - fromYaml of a text is kept, and each call gets its own copy: templates change the maps they
//     are given (sprig's set, unset, merge).

import (
	"encoding/json"
	"strings"

	"sigs.k8s.io/yaml"
)

// What the memo keeps is bounded by its keys' and answers' text: past it, it starts again.
const maxMemoBytes = 16 << 20

type yamlOfJSON struct {
	text string
	ok   bool
}

var (
	yamlOfJSONs = map[string]yamlOfJSON{}
	mapsOfYAML  = map[string]map[string]interface{}{}
	memoBytes   = 0
)

func remember(size int) {
	if memoBytes+size > maxMemoBytes {
		clear(yamlOfJSONs)
		clear(mapsOfYAML)
		memoBytes = 0
	}
	memoBytes += size
}

func toYAML(v interface{}) string {
	j, err := json.Marshal(v)
	if err != nil {
		// helm's toYAML swallows errors inside a template.
		return ""
	}
	if got, ok := yamlOfJSONs[string(j)]; ok {
		if !got.ok {
			return ""
		}
		return got.text
	}
	var answer yamlOfJSON
	if data, err := yaml.JSONToYAML(j); err == nil {
		answer = yamlOfJSON{text: strings.TrimSuffix(string(data), "\n"), ok: true}
	}
	remember(len(j) + len(answer.text))
	yamlOfJSONs[string(j)] = answer
	return answer.text
}

func fromYAML(str string) map[string]interface{} {
	m, ok := mapsOfYAML[str]
	if !ok {
		m = helmFromYAML(str)
		remember(2 * len(str))
		mapsOfYAML[str] = copyJSONMap(m)
	}
	return copyJSONMap(m)
}

// copyJSONMap copies what encoding/json decodes into: maps, lists and scalars (nil stays nil).
func copyJSONMap(m map[string]interface{}) map[string]interface{} {
	if m == nil {
		return nil
	}
	out := make(map[string]interface{}, len(m))
	for k, v := range m {
		out[k] = copyJSONValue(v)
	}
	return out
}

func copyJSONValue(v interface{}) interface{} {
	switch x := v.(type) {
	case map[string]interface{}:
		return copyJSONMap(x)
	case []interface{}:
		if x == nil {
			return x
		}
		out := make([]interface{}, len(x))
		for i, e := range x {
			out[i] = copyJSONValue(e)
		}
		return out
	default:
		return v
	}
}
