// Command slimschema writes kyaml's built-in Kubernetes OpenAPI document (the protobuf that
// kustomize parses before its first strategic-merge patch or namespace lookup) without what no
// build reads: descriptions, examples and external docs everywhere, and of each API path all but
// its GET operation's group-version-kind (kyaml reads paths only to learn which kinds are
// namespaced). The kustomize module parses this instead of the original: 232 KB instead of
// 3.4 MB, parsed about ten times faster, and that parse was most of an instance's start under
// WebAssembly. Before it writes, it parses both through kyaml and stops if any definition (but for
// the fields dropped) or any kind's namespace scope differs.
//
//	go run ./cmd/kustomize/slimschema OUT
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"sigs.k8s.io/kustomize/kyaml/openapi"
	"sigs.k8s.io/kustomize/kyaml/openapi/kubernetesapi"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// gvkExtension is the only part of a path kyaml reads (openapi.findNamespaceability).
const gvkExtension = "x-kubernetes-group-version-kind"

// unread are fields no kustomize build reads, in any message of the document.
var unread = map[protoreflect.Name]bool{"description": true, "example": true, "external_docs": true}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: slimschema OUT")
		os.Exit(2)
	}
	version := kubernetesapi.DefaultOpenAPI
	asset := fmt.Sprintf("kubernetesapi/%s/swagger.pb", versionDir(version))
	doc := &openapi_v2.Document{}
	if err := proto.Unmarshal(kubernetesapi.OpenAPIMustAsset[version](asset), doc); err != nil {
		fail(err)
	}
	pathKinds, err := kindsOfPaths(doc.GetPaths().GetPath())
	if err != nil {
		fail(err)
	}
	builtInPathScopes := pathScopes(doc.GetPaths().GetPath())
	doc.Paths.Path = scopePaths(doc.GetPaths().GetPath())
	if !reflect.DeepEqual(builtInPathScopes, pathScopes(doc.GetPaths().GetPath())) {
		fail(fmt.Errorf("the paths kept say otherwise than the built-in ones which kinds are namespaced"))
	}
	strip(doc.ProtoReflect())
	out, err := proto.MarshalOptions{Deterministic: true}.Marshal(doc)
	if err != nil {
		fail(err)
	}
	if err := sameAsBuiltIn(version, out, pathKinds); err != nil {
		fail(err)
	}
	if err := os.WriteFile(os.Args[1], out, 0o644); err != nil {
		fail(err)
	}
}

// scopePaths keeps, of each kind's GET paths, one that says whether the kind is namespaced: a path
// under namespaces/{namespace} if it has one (kyaml: namespaced), else its first (cluster-scoped);
// and of that path only its GET operation's group-version-kind. A kind's several paths (list,
// watch, each namespace's) would each cost a YAML parse of that extension in kyaml's conversion.
func scopePaths(paths []*openapi_v2.NamedPathItem) []*openapi_v2.NamedPathItem {
	var kept []*openapi_v2.NamedPathItem
	byKind := map[string]int{}
	for _, p := range paths {
		var gvk *openapi_v2.NamedAny
		for _, ext := range p.GetValue().GetGet().GetVendorExtension() {
			if ext.GetName() == gvkExtension {
				gvk = ext
			}
		}
		if gvk == nil {
			continue
		}
		slim := &openapi_v2.NamedPathItem{
			Name:  p.GetName(),
			Value: &openapi_v2.PathItem{Get: &openapi_v2.Operation{VendorExtension: []*openapi_v2.NamedAny{gvk}}},
		}
		kind := gvk.GetValue().GetYaml()
		namespaced := strings.Contains(p.GetName(), "namespaces/{namespace}")
		if i, seen := byKind[kind]; !seen {
			byKind[kind] = len(kept)
			kept = append(kept, slim)
		} else if namespaced && !strings.Contains(kept[i].GetName(), "namespaces/{namespace}") {
			kept[i] = slim
		}
	}
	return kept
}

// pathScopes is, by kind, whether the paths make it namespaced, by kyaml's rule
// (openapi.findNamespaceability; kyaml answers the built-in kinds from its own table first).
func pathScopes(paths []*openapi_v2.NamedPathItem) map[string]bool {
	scopes := map[string]bool{}
	for _, p := range paths {
		for _, ext := range p.GetValue().GetGet().GetVendorExtension() {
			if ext.GetName() == gvkExtension {
				scopes[ext.GetValue().GetYaml()] = scopes[ext.GetValue().GetYaml()] || strings.Contains(p.GetName(), "namespaces/{namespace}")
			}
		}
	}
	return scopes
}

// strip clears the unread fields of m and of every message under it.
func strip(m protoreflect.Message) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if unread[fd.Name()] {
			m.Clear(fd)
			return true
		}
		switch {
		case fd.IsList() && fd.Message() != nil:
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				strip(l.Get(i).Message())
			}
		case fd.IsMap() && fd.MapValue().Message() != nil:
			v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
				strip(mv.Message())
				return true
			})
		case fd.Message() != nil && !fd.IsList() && !fd.IsMap():
			strip(v.Message())
		}
		return true
	})
}

// versionDir is the asset folder of a version: v1.21.2 -> v1_21_2 (as kyaml's parseBuiltinSchema names it).
func versionDir(v string) string {
	b := []byte(v)
	for i, c := range b {
		if c == '.' {
			b[i] = '_'
		}
	}
	return string(b)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "slimschema:", err)
	os.Exit(1)
}

// sameAsBuiltIn parses the built-in document and slim through kyaml, as a build does, and compares
// what builds read: every definition without the unread fields, and each kind's namespace scope.
func sameAsBuiltIn(version string, slim []byte, pathKinds []yaml.TypeMeta) error {
	builtIn, builtInScopes, err := parsed(pathKinds)
	if err != nil {
		return err
	}
	orig := kubernetesapi.OpenAPIMustAsset[version]
	kubernetesapi.OpenAPIMustAsset[version] = func(string) []byte { return slim }
	defer func() { kubernetesapi.OpenAPIMustAsset[version] = orig }()
	ours, ourScopes, err := parsed(pathKinds)
	if err != nil {
		return err
	}
	if len(builtIn) == 0 || len(builtInScopes) == 0 {
		return fmt.Errorf("the built-in schema has no definitions or no kinds")
	}
	for name, def := range builtIn {
		if !reflect.DeepEqual(def, ours[name]) {
			return fmt.Errorf("definition %s differs from the built-in schema's", name)
		}
	}
	if len(ours) != len(builtIn) {
		return fmt.Errorf("%d definitions, the built-in schema has %d", len(ours), len(builtIn))
	}
	if !reflect.DeepEqual(builtInScopes, ourScopes) {
		return fmt.Errorf("the namespace scope of some kinds differs from the built-in schema's")
	}
	return nil
}

// parsed is kyaml's schema, freshly parsed: its definitions as JSON values without the unread
// fields, and the namespace scope of every kind they or the document's paths name.
func parsed(pathKinds []yaml.TypeMeta) (map[string]interface{}, map[string][2]bool, error) {
	openapi.ResetOpenAPI()
	defer openapi.ResetOpenAPI()
	s := openapi.Schema()
	b, err := json.Marshal(s.Definitions)
	if err != nil {
		return nil, nil, err
	}
	var defs map[string]interface{}
	if err := json.Unmarshal(b, &defs); err != nil {
		return nil, nil, err
	}
	for name := range defs {
		defs[name] = withoutUnread(defs[name], false)
	}
	scopes := map[string][2]bool{}
	names := make([]string, 0, len(s.Definitions))
	for name := range s.Definitions {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		gvks, _ := s.Definitions[name].Extensions[gvkExtension].([]interface{})
		for _, g := range gvks {
			m, _ := g.(map[string]interface{})
			apiVersion := fmt.Sprint(m["version"])
			if group := fmt.Sprint(m["group"]); group != "" {
				apiVersion = group + "/" + apiVersion
			}
			tm := yaml.TypeMeta{APIVersion: apiVersion, Kind: fmt.Sprint(m["kind"])}
			namespaced, known := openapi.IsNamespaceScoped(tm)
			scopes[apiVersion+" "+tm.Kind] = [2]bool{namespaced, known}
		}
	}
	for _, tm := range pathKinds {
		namespaced, known := openapi.IsNamespaceScoped(tm)
		scopes[tm.APIVersion+" "+tm.Kind] = [2]bool{namespaced, known}
	}
	return defs, scopes, nil
}

// kindsOfPaths are the kinds the paths' GET operations name (their group-version-kind extension).
func kindsOfPaths(paths []*openapi_v2.NamedPathItem) ([]yaml.TypeMeta, error) {
	var kinds []yaml.TypeMeta
	for _, p := range paths {
		for _, ext := range p.GetValue().GetGet().GetVendorExtension() {
			if ext.GetName() != gvkExtension {
				continue
			}
			var gvk struct{ Group, Version, Kind string }
			if err := yaml.Unmarshal([]byte(ext.GetValue().GetYaml()), &gvk); err != nil {
				return nil, fmt.Errorf("path %s: %w", p.GetName(), err)
			}
			apiVersion := gvk.Version
			if gvk.Group != "" {
				apiVersion = gvk.Group + "/" + apiVersion
			}
			kinds = append(kinds, yaml.TypeMeta{APIVersion: apiVersion, Kind: gvk.Kind})
		}
	}
	if len(kinds) == 0 {
		return nil, fmt.Errorf("no path names a kind")
	}
	return kinds, nil
}

// withoutUnread is a definition's JSON without the fields strip clears (JSON names); the keys of
// a properties map are property names (PriorityClass has one called description), kept.
func withoutUnread(v interface{}, names bool) interface{} {
	switch t := v.(type) {
	case map[string]interface{}:
		for k, x := range t {
			if !names && (k == "description" || k == "example" || k == "externalDocs") {
				delete(t, k)
			} else {
				t[k] = withoutUnread(x, !names && (k == "properties" || k == "patternProperties" || k == "definitions"))
			}
		}
	case []interface{}:
		for i := range t {
			t[i] = withoutUnread(t[i], false)
		}
	}
	return v
}
