// The kustomize module: kustomize-controller's build of a folder of an in-memory file set.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strings"

	"gitops-preview/wasm/internal/abi"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/openapi"
)

// Source files live below this folder of the in-memory file system; error messages drop it.
const sourceRoot = "/source"

type kustomizeArgs struct {
	// Dir is the folder to build, relative to the file set's root.
	Dir string `json:"dir"`
}

// kustomizeBuild is kustomize-controller's build over a file system holding only the files the
// host sent: nothing outside them exists, so `..` past the root or an absolute path finds nothing.
func kustomizeBuild(raw json.RawMessage, files abi.Files) (string, error) {
	var args kustomizeArgs
	if err := json.Unmarshal(raw, &args); err != nil {
		return "", fmt.Errorf("bad kustomize arguments: %w", err)
	}
	fs, err := memFS(files)
	if err != nil {
		return "", err
	}
	dir := path.Join(sourceRoot, path.Clean("/"+args.Dir))
	var res resmap.ResMap
	if setsOpenAPI(files) {
		res, err = buildIsolatingSchema(fs, dir)
	} else {
		res, err = build(fs, dir)
	}
	if err != nil {
		return "", relativeToSource(err)
	}
	out, err := res.AsYaml()
	if err != nil {
		return "", relativeToSource(err)
	}
	return string(out), nil
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
	fs := nameFS{filesys.MakeFsInMemory()}
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

func relativeToSource(err error) error {
	msg := strings.ReplaceAll(err.Error(), sourceRoot+"/", "")
	return fmt.Errorf("%s", strings.ReplaceAll(msg, sourceRoot, "."))
}

func init() { abi.Register("kustomize", kustomizeBuild) }

// main is never run: the module is a reactor (-buildmode=c-shared); the host calls _initialize.
func main() {}
