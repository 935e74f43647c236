// The kustomize module: kustomize-controller's build of a folder of an in-memory file set.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strings"

	"gitops-preview/wasm/internal/abi"
	"gitops-preview/wasm/internal/namefs"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/openapi"
	sigsyaml "sigs.k8s.io/yaml"
)

// Source files live below this folder of the in-memory file system; error messages drop it.
const sourceRoot = "/source"

type kustomizeArgs struct {
	// Dir is the folder to build, relative to the file set's root.
	Dir string `json:"dir"`
	// Reads asks for the paths the build looked at: the output is then a recordedBuild (JSON),
	// a failed build included, so the host can cache either by the content they depend on.
	Reads bool `json:"reads"`
	// Base names a file set the instance keeps between builds (builds of one source differ only in
	// Flux's kustomization at spec.path): with Full the request holds the whole set, which becomes
	// the base, and nothing is built; otherwise it holds the files to lay over the base for this
	// build only. An unknown base is answered with NeedBase, and the host sends the whole set.
	Base string `json:"base"`
	Full bool   `json:"full"`
	// Update turns the kept set named Update.From into Base (an edit), then builds: the request's
	// Count first files are the ones that changed or appeared, Remove the paths that are gone, and
	// the rest are laid over the set for this build only. An instance that does not hold
	// Update.From answers NeedBase and changes nothing.
	Update *baseUpdate `json:"update"`
	// Only asks for the build redone in part for a change of this one file (partial.go): its
	// answer holds the same objects for that file's resources as the whole build, or Refused.
	Only string `json:"only"`
}

type baseUpdate struct {
	From   string   `json:"from"`
	Remove []string `json:"remove"`
	Count  int      `json:"count"`
}

// base is the kept file set (one: the host builds one source at a time).
var base struct {
	key     string
	fs      filesys.FileSystem
	openAPI bool
}

type recordedBuild struct {
	NeedBase bool              `json:"needBase,omitempty"`
	OK       bool              `json:"ok"`
	Objects  []outputObject    `json:"objects,omitempty"`
	Error    string            `json:"error,omitempty"`
	Reads    map[string]string `json:"reads"`
	// Refused says why a build in part (kustomizeArgs.Only) cannot stand for the whole build.
	Refused string `json:"refused,omitempty"`
}

// outputObject is one resource of the build as JSON (what the host decodes), with kustomize's YAML
// of it (what `kustomize build` prints, and what Flux's post-build substitution rewrites) only when
// the resource holds a `$`: without one, substitution cannot change it, and converting every
// resource to YAML took a quarter of a build's time.
type outputObject struct {
	JSON json.RawMessage `json:"json"`
	YAML string          `json:"yaml,omitempty"`
}

// kustomizeBuild is kustomize-controller's build over a file system holding only the files the
// host sent: nothing outside them exists, so `..` past the root or an absolute path finds nothing.
func kustomizeBuild(raw json.RawMessage, files abi.Files) (string, error) {
	var args kustomizeArgs
	if err := json.Unmarshal(raw, &args); err != nil {
		return "", fmt.Errorf("bad kustomize arguments: %w", err)
	}
	if !args.Reads {
		mem, err := memFS(files)
		if err != nil {
			return "", err
		}
		return buildYaml(mem, setsOpenAPI(files), args.Dir)
	}
	var mem filesys.FileSystem
	var err error
	openAPI := setsOpenAPI(files)
	switch {
	case args.Base == "":
		if mem, err = memFS(files); err != nil {
			return "", err
		}
	case args.Full:
		planEpoch++
		base.key = ""
		if base.fs, err = memFS(files); err != nil {
			return "", err
		}
		base.key, base.openAPI = args.Base, openAPI
		b, err := json.Marshal(recordedBuild{OK: true})
		return string(b), err
	case args.Update != nil:
		u := args.Update
		if u.From != base.key || u.Count < 0 || u.Count > len(files.List) {
			b, err := json.Marshal(recordedBuild{NeedBase: true})
			return string(b), err
		}
		changed := abi.Files{List: files.List[:u.Count], Contents: files.Contents[:u.Count]}
		files = abi.Files{List: files.List[u.Count:], Contents: files.Contents[u.Count:]}
		if err := updateBase(args.Base, changed, u.Remove); err != nil {
			return "", err
		}
		restore, err := overlay(base.fs, files)
		defer restore()
		if err != nil {
			return "", err
		}
		mem, openAPI = base.fs, setsOpenAPI(files) || base.openAPI
	case args.Base != base.key:
		b, err := json.Marshal(recordedBuild{NeedBase: true})
		return string(b), err
	default:
		restore, err := overlay(base.fs, files)
		defer restore()
		if err != nil {
			return "", err
		}
		mem, openAPI = base.fs, openAPI || base.openAPI
	}
	if args.Only != "" {
		return partialBuild(mem, openAPI, args, digest(files))
	}
	recorder := newRecordingFS(mem)
	objects, err := buildObjects(recorder, openAPI, args.Dir)
	result := recordedBuild{OK: err == nil, Objects: objects, Reads: recorder.reads}
	if err != nil {
		result.Error = err.Error()
	}
	b, err := json.Marshal(result)
	return string(b), err
}

func buildYaml(fs filesys.FileSystem, openAPI bool, buildDir string) (string, error) {
	res, err := buildResMap(fs, openAPI, buildDir)
	if err != nil {
		return "", err
	}
	out, err := res.AsYaml()
	if err != nil {
		return "", relativeToSource(err)
	}
	return string(out), nil
}

// buildObjects is buildYaml's output per resource: the same bytes for a resource given as YAML
// (kustomize's Resource.AsYAML is JSONToYAML of its JSON).
func buildObjects(fs filesys.FileSystem, openAPI bool, buildDir string) ([]outputObject, error) {
	res, err := buildResMap(fs, openAPI, buildDir)
	if err != nil {
		return nil, err
	}
	out := make([]outputObject, 0, res.Size())
	for _, r := range res.Resources() {
		j, err := resourceJSON(r)
		if err != nil {
			return nil, relativeToSource(fmt.Errorf("%s: %w", r.CurId(), err))
		}
		o := outputObject{JSON: j}
		if bytes.IndexByte(j, '$') >= 0 {
			y, err := sigsyaml.JSONToYAML(j)
			if err != nil {
				return nil, relativeToSource(fmt.Errorf("%s: %w", r.CurId(), err))
			}
			o.YAML = string(y)
		}
		out = append(out, o)
	}
	return out, nil
}

func buildResMap(fs filesys.FileSystem, openAPI bool, buildDir string) (resmap.ResMap, error) {
	dir := path.Join(sourceRoot, path.Clean("/"+buildDir))
	// Declared by the patched kustomize api the module is compiled against (scripts/build-wasm.sh
	// builds it through a Go workspace; a plain `go build` of this folder does not know it).
	kustypes.SkipTransformerAnnotations = !asksTransformerAnnotations(fs, dir)
	var res resmap.ResMap
	var err error
	if openAPI {
		res, err = buildIsolatingSchema(fs, dir)
	} else {
		res, err = build(fs, dir)
	}
	if err != nil {
		return nil, relativeToSource(err)
	}
	return res, nil
}

// asksTransformerAnnotations tells whether the kustomization at dir may ask for transformer
// annotations (then kustomize records them, as it always does): any mention of the option counts.
func asksTransformerAnnotations(fs filesys.FileSystem, dir string) bool {
	for _, name := range []string{"kustomization.yaml", "kustomization.yml", "Kustomization"} {
		if b, err := fs.ReadFile(path.Join(dir, name)); err == nil && bytes.Contains(b, []byte(kustypes.TransformerAnnotations)) {
			return true
		}
	}
	return false
}

var openAPIField = regexp.MustCompile(`(?m)^openapi\s*:`)

// setsOpenAPI tells whether a kustomization file of the set has an `openapi` field, the one way a
// build changes kyaml's global schema.
func setsOpenAPI(files abi.Files) bool {
	for i, f := range files.List {
		switch path.Base(f.Path) {
		case "kustomization.yaml", "kustomization.yml", "Kustomization":
			if c := files.Contents[i]; bytes.Contains(c, []byte("openapi")) && openAPIField.Match(c) {
				return true
			}
		}
	}
	return false
}

// buildIsolatingSchema is build with kyaml's global schema reset to the built-in one before and
// after, as fluxcd/pkg/kustomize's Build does for every build, so a custom schema cannot leak
// into the next build. Reparsing the built-in schema costs hundreds of milliseconds under
// WebAssembly, so builds that cannot change it skip the reset.
func buildIsolatingSchema(fs filesys.FileSystem, dir string) (resmap.ResMap, error) {
	openapi.ResetOpenAPI()
	_ = openapi.Schema()
	defer openapi.ResetOpenAPI()
	return build(fs, dir)
}

// build runs krusty with kustomize-controller's settings (fluxcd/pkg/kustomize Build, v1.41):
// load restrictions off inside the source, built-in plugins only (so no Helm chart inflation and
// no exec/container functions), and a kustomize panic turned into an error. That package is not
// imported: it links controller-runtime's client, which made the module 2.7 times larger and its
// start 4 times slower.
func build(fs filesys.FileSystem, dir string) (res resmap.ResMap, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered from kustomize build panic: %v", r)
		}
	}()
	k := krusty.MakeKustomizer(&krusty.Options{
		LoadRestrictions: kustypes.LoadRestrictionsNone,
		PluginConfig:     kustypes.DisabledPluginConfig(),
	})
	return k.Run(fs, dir)
}

func memFS(files abi.Files) (filesys.FileSystem, error) {
	fs := namefs.New(filesys.MakeFsInMemory())
	if err := fs.MkdirAll(sourceRoot); err != nil {
		return nil, err
	}
	for i, f := range files.List {
		p := path.Join(sourceRoot, path.Clean("/"+f.Path))
		if err := fs.MkdirAll(path.Dir(p)); err != nil {
			return nil, fmt.Errorf("%s: %w", f.Path, err)
		}
		if err := fs.WriteFile(p, files.Contents[i]); err != nil {
			return nil, fmt.Errorf("%s: %w", f.Path, err)
		}
	}
	return fs, nil
}

// overlay writes the request's files over the kept set and returns what puts the set back as it was.
func overlay(fs filesys.FileSystem, files abi.Files) (func(), error) {
	var undo []func()
	restore := func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
	for i, f := range files.List {
		p := path.Join(sourceRoot, path.Clean("/"+f.Path))
		if fs.Exists(p) {
			old, err := fs.ReadFile(p)
			if err != nil {
				return restore, fmt.Errorf("%s: %w", f.Path, err)
			}
			undo = append(undo, func() { _ = fs.WriteFile(p, old) })
		} else {
			// Folders created for it stay: empty folders change no build.
			undo = append(undo, func() { _ = fs.RemoveAll(p) })
		}
		if err := fs.MkdirAll(path.Dir(p)); err != nil {
			return restore, fmt.Errorf("%s: %w", f.Path, err)
		}
		if err := fs.WriteFile(p, files.Contents[i]); err != nil {
			return restore, fmt.Errorf("%s: %w", f.Path, err)
		}
	}
	return restore, nil
}

// updateBase turns the kept set into the one named key: `changed` written over it, `remove` gone.
func updateBase(key string, changed abi.Files, remove []string) error {
	base.key = ""
	if len(remove) > 0 || changesPlans(base.fs, changed) {
		planEpoch++
	}
	if _, err := overlay(base.fs, changed); err != nil {
		return err
	}
	for _, p := range remove {
		_ = base.fs.RemoveAll(path.Join(sourceRoot, path.Clean("/"+p)))
	}
	base.key, base.openAPI = key, base.openAPI || setsOpenAPI(changed)
	return nil
}

// changesPlans tells whether laying files over the kept set may change a plan of a build in part:
// a kustomization changes, or a file appears.
func changesPlans(fs filesys.FileSystem, files abi.Files) bool {
	for _, f := range files.List {
		p := path.Join(sourceRoot, path.Clean("/"+f.Path))
		if isKustomizationName(path.Base(p)) || !fs.Exists(p) {
			return true
		}
	}
	return false
}

// digest names a set of files by their paths and contents.
func digest(files abi.Files) string {
	h := sha256.New()
	for i, f := range files.List {
		fmt.Fprintf(h, "%d:%s:%d:", i, f.Path, len(files.Contents[i]))
		h.Write(files.Contents[i])
	}
	return hex.EncodeToString(h.Sum(nil))
}

func relativeToSource(err error) error {
	msg := strings.ReplaceAll(err.Error(), sourceRoot+"/", "")
	return fmt.Errorf("%s", strings.ReplaceAll(msg, sourceRoot, "."))
}

// warm parses kyaml's built-in OpenAPI schema, which the first strategic-merge patch or namespace
// lookup of an instance otherwise does (about 0.7 s under WebAssembly): the host asks for it when
// it starts an instance, so it runs while the host is still reading the workspace.
func warm(json.RawMessage, abi.Files) (string, error) {
	_ = openapi.Schema()
	return "", nil
}

func init() {
	// Declared by the patched kustomize api (scripts/build-wasm.sh): the instance keeps up to 100k
	// parsed YAML nodes (about 20 MB of its heap) between builds: all of bjw-s-labs-home-ops'
	// source (about 50k) fits.
	resource.ParseCacheLimit = 100_000
	abi.Register("kustomize", kustomizeBuild)
	abi.Register("warm", warm)
}

// main is never run: the module is a reactor (-buildmode=c-shared); the host calls _initialize.
func main() {}
