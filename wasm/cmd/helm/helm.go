// The helm module: `helm template` of a chart given as an in-memory file set.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"

	"gitops-preview/wasm/internal/abi"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/ignore"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/releaseutil"
)

type templateArgs struct {
	// ChartKey names the chart's files (their digest): kept loaded under it, a later call may
	// send no files (loaded.go).
	ChartKey    string         `json:"chartKey"`
	ReleaseName string         `json:"releaseName"`
	Namespace   string         `json:"namespace"`
	KubeVersion string         `json:"kubeVersion"`
	IncludeCRDs bool           `json:"includeCRDs"`
	SkipTests   bool           `json:"skipTests"`
	Values      map[string]any `json:"values"`
	// Objects: answer the rendered documents as data (objects.go) instead of helm template's
	// text; Texts: with each document's text as helm template prints it.
	Objects bool `json:"objects"`
	Texts   bool `json:"texts"`
}

// template is `helm template NAME CHART --namespace NS --kube-version V [--include-crds] [--skip-tests]`
// with the values given as one `--values` file: the chart's files are the request's (chart root
// at the file set's root), loaded as `helm` loads a chart folder (.helmignore honoured).
func template(raw json.RawMessage, files abi.Files) (string, error) {
	args, ch, err := request(raw, files)
	if err != nil {
		return "", err
	}
	if t := ch.Metadata.Type; t != "" && t != "application" {
		return "", fmt.Errorf("%s charts are not installable", t)
	}
	if req := ch.Metadata.Dependencies; req != nil {
		if missing := missingDependencies(ch, req); len(missing) > 0 {
			return "", fmt.Errorf("An error occurred while checking for chart dependencies. You may need to run `helm dependency build` to fetch missing dependencies: found in Chart.yaml, but missing in charts/ directory: %s", strings.Join(missing, ", "))
		}
	}
	if args.Objects {
		releaseutil.KeptJSON = map[string][]byte{}
		defer func() { releaseutil.KeptJSON = nil }()
	}
	rendered, err := render(ch, args)
	if err != nil {
		return "", err
	}
	if args.Objects {
		return renderedObjects(rendered, args)
	}
	var out bytes.Buffer
	fmt.Fprintln(&out, strings.TrimSpace(rendered.manifest))
	for _, h := range rendered.hooks {
		if args.SkipTests && isTestHook(h) {
			continue
		}
		fmt.Fprintf(&out, "---\n# Source: %s\n%s\n", h.Path, h.Manifest)
	}
	return out.String(), nil
}

type rendering struct {
	manifest  string
	crds      []chart.CRD
	manifests []releaseutil.Manifest
	hooks     []*release.Hook
}

// render is what helm's action.Install does for `helm template` (client only, dry run): that
// package does not build for wasip1 (it links terminal and cluster code), so its rendering steps
// are called here one by one, in its order, with its messages: release name check, dependencies
// and their values, default capabilities at the given Kubernetes version, values with schema
// validation, the template engine, NOTES dropped, manifests sorted in install order, CRDs first
// when included.
func render(ch *chart.Chart, args templateArgs) (rendering, error) {
	if err := chartutil.ValidateReleaseName(args.ReleaseName); err != nil {
		return rendering{}, fmt.Errorf("release name %q: %w", args.ReleaseName, err)
	}
	if err := chartutil.ProcessDependenciesWithMerge(ch, args.Values); err != nil {
		return rendering{}, err
	}
	caps := chartutil.DefaultCapabilities.Copy()
	if args.KubeVersion != "" {
		kv, err := chartutil.ParseKubeVersion(args.KubeVersion)
		if err != nil {
			return rendering{}, fmt.Errorf("invalid kube version '%s': %s", args.KubeVersion, err)
		}
		caps.KubeVersion = *kv
	}
	options := chartutil.ReleaseOptions{Name: args.ReleaseName, Namespace: args.Namespace, Revision: 1, IsInstall: true}
	// helm's ToRenderValuesWithSchemaValidation, its schema validation done here (schema.go) with
	// compiled schemas kept between calls; same order, same message.
	values, err := chartutil.ToRenderValuesWithSchemaValidation(ch, args.Values, options, caps, true)
	if err != nil {
		return rendering{}, err
	}
	vals, ok := values["Values"].(chartutil.Values)
	if !ok {
		return rendering{}, fmt.Errorf("internal error: the coalesced values are a %T", values["Values"])
	}
	if err := validateAgainstSchema(ch, vals); err != nil {
		return rendering{}, fmt.Errorf("values don't meet the specifications of the schema(s) in the following chart(s):\n%s", err.Error())
	}
	if ch.Metadata.KubeVersion != "" && !chartutil.IsCompatibleRange(ch.Metadata.KubeVersion, caps.KubeVersion.String()) {
		return rendering{}, fmt.Errorf("chart requires kubeVersion: %s which is incompatible with Kubernetes %s", ch.Metadata.KubeVersion, caps.KubeVersion.String())
	}
	var e engine.Engine
	files, err := e.Render(ch, values)
	if err != nil {
		return rendering{}, err
	}
	for k := range files {
		if strings.HasSuffix(k, "NOTES.txt") {
			delete(files, k)
		}
	}
	hooks, manifests, err := releaseutil.SortManifests(files, nil, releaseutil.InstallOrder)
	if err != nil {
		return rendering{}, err
	}
	var crds []chart.CRD
	if args.IncludeCRDs {
		crds = ch.CRDObjects()
	}
	if args.Objects {
		// The answer is the documents themselves (objects.go): no text to write.
		return rendering{crds: crds, manifests: manifests, hooks: hooks}, nil
	}
	var b bytes.Buffer
	for _, crd := range crds {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", crd.Filename, string(crd.File.Data))
	}
	for _, m := range manifests {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", m.Name, m.Content)
	}
	return rendering{manifest: b.String(), crds: crds, manifests: manifests, hooks: hooks}, nil
}

// missingDependencies is helm's action.CheckDependencies: Chart.yaml dependencies with no chart in charts/.
func missingDependencies(ch *chart.Chart, reqs []*chart.Dependency) []string {
	var missing []string
	for _, r := range reqs {
		found := false
		for _, d := range ch.Dependencies() {
			found = found || d.Name() == r.Name
		}
		if !found {
			missing = append(missing, r.Name)
		}
	}
	return missing
}

func isTestHook(h *release.Hook) bool {
	for _, e := range h.Events {
		if e == release.HookTest {
			return true
		}
	}
	return false
}

var utf8bom = []byte{0xEF, 0xBB, 0xBF}

// loadChart is helm's loader.LoadDir over the file set: .helmignore rules (with helm's defaults)
// skip files and whole folders, a UTF-8 BOM is dropped, then loader.LoadFiles builds the chart.
func loadChart(files abi.Files) (*chart.Chart, error) {
	rules := ignore.Empty()
	for i, f := range files.List {
		if f.Path == ignore.HelmIgnore {
			r, err := ignore.Parse(bytes.NewReader(files.Contents[i]))
			if err != nil {
				return nil, err
			}
			rules = r
		}
	}
	rules.AddDefaults()
	order := make([]int, len(files.List))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return files.List[order[a]].Path < files.List[order[b]].Path })
	var buffered []*loader.BufferedFile
	for _, i := range order {
		name := files.List[i].Path
		if ignoredDir(rules, name) || rules.Ignore(name, info{name: path.Base(name), size: int64(len(files.Contents[i]))}) {
			continue
		}
		if len(files.Contents[i]) > int(loader.MaxDecompressedFileSize) {
			return nil, fmt.Errorf("chart file %q is larger than the maximum file size %d", path.Base(name), loader.MaxDecompressedFileSize)
		}
		buffered = append(buffered, &loader.BufferedFile{Name: name, Data: bytes.TrimPrefix(files.Contents[i], utf8bom)})
	}
	return loader.LoadFiles(buffered)
}

// ignoredDir tells whether a folder above name is ignored (LoadDir skips such folders whole).
func ignoredDir(rules *ignore.Rules, name string) bool {
	parts := strings.Split(name, "/")
	for i := 1; i < len(parts); i++ {
		dir := strings.Join(parts[:i], "/")
		if rules.Ignore(dir, info{name: parts[i-1], dir: true}) {
			return true
		}
	}
	return false
}

// info is the os.FileInfo that helm's ignore rules look at (name and whether it is a folder).
type info struct {
	name string
	size int64
	dir  bool
}

func (i info) Name() string { return i.name }
func (i info) Size() int64  { return i.size }
func (i info) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}
func (i info) ModTime() time.Time { return time.Time{} }
func (i info) IsDir() bool        { return i.dir }
func (i info) Sys() any           { return nil }

func init() { abi.Register("helm", template) }

// main is never run: the module is a reactor (-buildmode=c-shared); the host calls _initialize.
func main() {}
