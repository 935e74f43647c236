package releaseutil

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	goyaml "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"
)

// DocumentJSON is sigs.k8s.io/yaml.YAMLToJSON of a document with its mappings' keys in the
// document's order instead of sorted (YAMLToJSON decodes into Go maps), so that objects read the
// way their templates write them. The same decoder and the same conversion of keys and values;
// a document that is not a mapping, or that the ordered conversion cannot write, takes YAMLToJSON.
func DocumentJSON(text string) ([]byte, error) {
	var doc goyaml.MapSlice
	if err := goyaml.Unmarshal([]byte(text), &doc); err == nil && len(doc) > 0 {
		var b bytes.Buffer
		if writeJSON(&b, doc) == nil {
			return b.Bytes(), nil
		}
	}
	return yaml.YAMLToJSON([]byte(text))
}

func writeJSON(b *bytes.Buffer, v interface{}) error {
	switch x := v.(type) {
	case goyaml.MapSlice:
		b.WriteByte('{')
		for i, item := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			key, err := jsonKey(item.Key)
			if err != nil {
				return err
			}
			k, _ := json.Marshal(key)
			b.Write(k)
			b.WriteByte(':')
			if err := writeJSON(b, item.Value); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case []interface{}:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSON(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case map[interface{}]interface{}:
		// Not what a MapSlice decode gives; YAMLToJSON's own path then.
		return fmt.Errorf("unordered mapping")
	default:
		j, err := json.Marshal(x)
		if err != nil {
			return err
		}
		b.Write(j)
	}
	return nil
}

// jsonKey is sigs.k8s.io/yaml's conversion of a mapping key without a target.
func jsonKey(k interface{}) (string, error) {
	switch key := k.(type) {
	case string:
		return key, nil
	case int:
		return strconv.Itoa(key), nil
	case int64:
		return strconv.FormatInt(key, 10), nil
	case float64:
		s := strconv.FormatFloat(key, 'g', -1, 32)
		switch s {
		case "+Inf":
			s = ".inf"
		case "-Inf":
			s = "-.inf"
		case "NaN":
			s = ".nan"
		}
		return s, nil
	case bool:
		if key {
			return "true", nil
		}
		return "false", nil
	}
	return "", fmt.Errorf("unsupported map key of type %T", k)
}
