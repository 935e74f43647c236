package main

import (
	_ "embed"

	"sigs.k8s.io/kustomize/kyaml/openapi/kubernetesapi"
)

// slimSchema is kyaml's built-in Kubernetes OpenAPI document without what no build reads, written
// and checked against the original by ./slimschema (scripts/build-wasm.sh runs it before the build).
//
//go:embed swagger.slim.pb
var slimSchema []byte

func init() {
	// kyaml parses the built-in schema through this table, on an instance's first strategic-merge
	// patch or namespace lookup and after every reset (buildIsolatingSchema): 0.8 s of an
	// instance's start under WebAssembly with the original document.
	kubernetesapi.OpenAPIMustAsset[kubernetesapi.DefaultOpenAPI] = func(string) []byte { return slimSchema }
}
