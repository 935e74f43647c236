package main

// Charts kept loaded in the instance between calls, by a key the host gives (the digest of the
// chart's files): a render of a chart the instance has seen is sent without its files and starts
// from a copy of the loaded chart. Loading app-template (its 1.4 MB of files sent, its and its
// library's values.yaml parsed) was a fifth of a warm render. A render changes the chart it is
// given (dependencies enabled or dropped by the values, imported values), so each one works on a
// copy: the kept chart is never handed out.

import (
	"encoding/json"
	"errors"
	"fmt"

	"gitops-preview/wasm/internal/abi"

	"helm.sh/helm/v3/pkg/chart"
)

// What an instance keeps is bounded by count and by the charts' file bytes: a repository uses a
// few dozen charts at most, and a CRD chart can be megabytes.
const (
	maxLoadedCharts     = 32
	maxLoadedChartBytes = 64 << 20
)

var loadedBytes = 0

// errNotLoaded starts the answer to a call that names a chart the instance does not hold: the
// host sends the call again with the chart's files.
const errNotLoaded = "gitops-preview: chart not loaded"

var loadedCharts = map[string]*chart.Chart{}

// request reads a call's arguments and the chart it is about (helm and helm-values take the same).
func request(raw json.RawMessage, files abi.Files) (templateArgs, *chart.Chart, error) {
	var args templateArgs
	if err := json.Unmarshal(raw, &args); err != nil {
		return args, nil, fmt.Errorf("bad helm arguments: %w", err)
	}
	ch, err := chartOf(args.ChartKey, files)
	return args, ch, err
}

// chartOf is the chart a call is about: loaded from its files (and kept under its key, when it
// has one), else a copy of the kept chart of its key.
func chartOf(key string, files abi.Files) (*chart.Chart, error) {
	if len(files.List) == 0 {
		kept, ok := loadedCharts[key]
		if key == "" || !ok {
			return nil, errors.New(errNotLoaded)
		}
		return cloneChart(kept), nil
	}
	ch, err := loadChart(files)
	size := 0
	for _, f := range files.List {
		size += f.Size
	}
	if err != nil || key == "" || size > maxLoadedChartBytes {
		return ch, err
	}
	if len(loadedCharts) >= maxLoadedCharts || loadedBytes+size > maxLoadedChartBytes {
		clear(loadedCharts)
		loadedBytes = 0
	}
	loadedCharts[key] = ch
	loadedBytes += size
	return cloneChart(ch), nil
}

// cloneChart copies what a render changes: the chart and its subcharts, their metadata's
// dependency entries and their default values. Templates and files are shared (only read).
func cloneChart(c *chart.Chart) *chart.Chart {
	out := *c
	if c.Metadata != nil {
		md := *c.Metadata
		md.Dependencies = make([]*chart.Dependency, len(c.Metadata.Dependencies))
		for i, d := range c.Metadata.Dependencies {
			if d == nil {
				continue
			}
			dd := *d
			dd.Tags = append([]string(nil), d.Tags...)
			dd.ImportValues = copyList(d.ImportValues)
			md.Dependencies[i] = &dd
		}
		out.Metadata = &md
	}
	out.Values = copyMap(c.Values)
	subs := make([]*chart.Chart, 0, len(c.Dependencies()))
	for _, d := range c.Dependencies() {
		subs = append(subs, cloneChart(d))
	}
	out.SetDependencies(subs...)
	return &out
}

func copyMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = copyValue(v)
	}
	return out
}

func copyList(l []any) []any {
	if l == nil {
		return nil
	}
	out := make([]any, len(l))
	for i, v := range l {
		out[i] = copyValue(v)
	}
	return out
}

func copyValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return copyMap(x)
	case []any:
		return copyList(x)
	case map[any]any:
		out := make(map[any]any, len(x))
		for k, e := range x {
			out[k] = copyValue(e)
		}
		return out
	case []string:
		return append([]string(nil), x...)
	default:
		// Scalars, and maps or lists of other types, which helm's values do not hold.
		return v
	}
}
