//go:build tools

// Package tools pins the programs built by build.sh into this module's graph.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
)
