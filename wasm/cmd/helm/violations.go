package main

// The `helm-values` operation: the violations behind helm's "values don't meet the specifications
// of the schema(s)" error, one per offending value, with where each is in the values. helm's own
// message is a tree of text; the editor needs each violation at its YAML node. Same values, same
// schemas and validator as `template` (ProcessDependenciesWithMerge, coalesced values, each
// chart's schema and its enabled subcharts' under their names), so the two always agree.

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"gitops-preview/wasm/internal/abi"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
)

// violation is one value the schema refuses: Path is its place in the merged values (subchart
// names first), Chart the chart whose schema refuses it, Message the validator's words.
type violation struct {
	Path    []string `json:"path"`
	Chart   string   `json:"chart"`
	Message string   `json:"message"`
	// Value is the refused value when it is a scalar (absent for a missing one or a map or list):
	// the host tells by it which of the values' sources holds it, and a masked one from the real.
	Value any `json:"value,omitempty"`
}

// maxViolations keeps an answer small whatever the values: the editor shows the first ones.
const maxViolations = 200

var printer = message.NewPrinter(language.English)

func valuesViolations(raw json.RawMessage, files abi.Files) (string, error) {
	args, ch, err := request(raw, files)
	if err != nil {
		return "", err
	}
	if err := chartutil.ProcessDependenciesWithMerge(ch, args.Values); err != nil {
		return "", err
	}
	options := chartutil.ReleaseOptions{Name: args.ReleaseName, Namespace: args.Namespace, Revision: 1, IsInstall: true}
	values, err := chartutil.ToRenderValuesWithSchemaValidation(ch, args.Values, options, chartutil.DefaultCapabilities.Copy(), true)
	if err != nil {
		return "", err
	}
	vals, ok := values["Values"].(chartutil.Values)
	if !ok {
		return "", fmt.Errorf("internal error: the coalesced values are a %T", values["Values"])
	}
	out := []violation{}
	if err := collectViolations(ch, vals, nil, &out); err != nil {
		return "", err
	}
	b, err := json.Marshal(map[string]any{"violations": out})
	return string(b), err
}

// collectViolations walks the charts as validateAgainstSchema does.
func collectViolations(ch *chart.Chart, values map[string]any, prefix []string, out *[]violation) error {
	if ch.Schema != nil {
		validator, err := compiledSchema(ch.Schema)
		if err != nil {
			return err
		}
		if err := validator.Validate(chartutil.Values(values).AsMap()); err != nil {
			var verr *jsonschema.ValidationError
			if !errors.As(err, &verr) {
				return err
			}
			first := len(*out)
			leaves(verr, prefix, ch.Name(), out)
			for i := first; i < len(*out); i++ {
				(*out)[i].Value = scalarAt(values, (*out)[i].Path[len(prefix):])
			}
		}
	}
	for _, sub := range ch.Dependencies() {
		raw, exists := values[sub.Name()]
		if !exists || raw == nil {
			continue
		}
		path := append(append([]string{}, prefix...), sub.Name())
		subValues, ok := raw.(map[string]any)
		if !ok {
			add(out, violation{Path: path, Chart: sub.Name(), Message: fmt.Sprintf("invalid type for values: expected object (map), got %T", raw)})
			continue
		}
		if err := collectViolations(sub, subValues, path, out); err != nil {
			return err
		}
	}
	return nil
}

// leaves reports each violation where the validator found it. An anyOf/oneOf that no branch
// satisfies is one violation (at the value), naming what each branch wanted: its branches' own
// errors are alternatives, not separate mistakes.
func leaves(e *jsonschema.ValidationError, prefix []string, chartName string, out *[]violation) {
	at := append(append([]string{}, prefix...), e.InstanceLocation...)
	switch k := e.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
		if len(e.Causes) > 0 {
			var alts []string
			for _, c := range e.Causes {
				alts = append(alts, firstLeaf(c))
			}
			add(out, violation{Path: at, Chart: chartName, Message: fmt.Sprintf("%s (%s)", k.LocalizedString(printer), strings.Join(dedupe(alts), "; or "))})
			return
		}
	}
	if len(e.Causes) == 0 {
		if _, isSchema := e.ErrorKind.(*kind.Schema); !isSchema {
			add(out, violation{Path: at, Chart: chartName, Message: e.ErrorKind.LocalizedString(printer)})
		}
		return
	}
	for _, c := range e.Causes {
		leaves(c, prefix, chartName, out)
	}
}

// firstLeaf is a branch's first own error, with where it is when that is below the branch's value.
func firstLeaf(e *jsonschema.ValidationError) string {
	for len(e.Causes) > 0 {
		e = e.Causes[0]
	}
	return e.ErrorKind.LocalizedString(printer)
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// scalarAt is the scalar at path in values, or nil (list items by their index).
func scalarAt(values map[string]any, path []string) any {
	var node any = values
	for _, key := range path {
		switch n := node.(type) {
		case map[string]any:
			node = n[key]
		case chartutil.Values:
			node = n[key]
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i < 0 || i >= len(n) {
				return nil
			}
			node = n[i]
		default:
			return nil
		}
	}
	switch node.(type) {
	case string, bool, float64, int, int64, json.Number:
		return node
	}
	return nil
}

func add(out *[]violation, v violation) {
	if len(*out) < maxViolations {
		*out = append(*out, v)
	}
}

func init() { abi.Register("helm-values", valuesViolations) }
