#!/usr/bin/env bash
# Pinned versions and cache locations of the test tools built by test/cluster/build.sh.
#
#   source test/cluster/tools-env.sh          # exports KUSTOMIZE_BIN, HELM_BIN, KUBE_APISERVER_BIN, ETCD_BIN, FLUX_BIN, REGISTRY_BIN, KUBECONFORM_BIN, FLATE_BIN
#   bash test/cluster/tools-env.sh --print    # prints NAME=path lines (for $GITHUB_ENV, eval, tests)
#   bash test/cluster/tools-env.sh --check    # like --print, but exits 1 if a binary is missing
#
# A *_BIN variable that is already set in the environment wins over the cached build
# (e.g. ETCD_BIN=/usr/bin/etcd to use a system etcd).

# Keep in sync with test/cluster/go.mod (k8s.io/kubernetes and go.etcd.io/etcd/server/v3).
GITOPS_KUBE_VERSION=v1.33.13
GITOPS_ETCD_VERSION=v3.5.21
GITOPS_KUSTOMIZE_VERSION=v5.8.2  # v5.8.3 needs Go >= 1.27
GITOPS_HELM_VERSION=v3.22.0
# The flux CLI, for build parity only (test/parity); v2.9.5 is the newest v2.9 the proxy serves.
GITOPS_FLUX_VERSION=v2.9.5
# The CNCF distribution registry, an OCI registry for the chart tests (test/integration/charts.test.ts).
GITOPS_REGISTRY_VERSION=v3.0.0
# kubeconform, the yardstick of the schema benchmark (bench/schema.bench.ts); v0.8.0 is the newest the proxy serves.
GITOPS_KUBECONFORM_VERSION=v0.8.0
# flate, the yardstick of the changes benchmark (bench/changes.bench.ts); its go.mod asks for
# Go >= 1.27, so build.sh builds it alone with GOTOOLCHAIN=$GITOPS_FLATE_GOTOOLCHAIN (from the proxy).
GITOPS_FLATE_VERSION=v0.6.5
GITOPS_FLATE_GOTOOLCHAIN=go1.27.3

GITOPS_PREVIEW_CACHE="${GITOPS_PREVIEW_CACHE:-$HOME/.cache/gitops-preview}"
GITOPS_TOOLS_BIN_DIR="$GITOPS_PREVIEW_CACHE/bin"

KUBE_APISERVER_BIN="${KUBE_APISERVER_BIN:-$GITOPS_TOOLS_BIN_DIR/kube-apiserver-$GITOPS_KUBE_VERSION/kube-apiserver}"
ETCD_BIN="${ETCD_BIN:-$GITOPS_TOOLS_BIN_DIR/etcd-$GITOPS_ETCD_VERSION/etcd}"
KUSTOMIZE_BIN="${KUSTOMIZE_BIN:-$GITOPS_TOOLS_BIN_DIR/kustomize-$GITOPS_KUSTOMIZE_VERSION/kustomize}"
HELM_BIN="${HELM_BIN:-$GITOPS_TOOLS_BIN_DIR/helm-$GITOPS_HELM_VERSION/helm}"
FLUX_BIN="${FLUX_BIN:-$GITOPS_TOOLS_BIN_DIR/flux-$GITOPS_FLUX_VERSION/flux}"
REGISTRY_BIN="${REGISTRY_BIN:-$GITOPS_TOOLS_BIN_DIR/registry-$GITOPS_REGISTRY_VERSION/registry}"
KUBECONFORM_BIN="${KUBECONFORM_BIN:-$GITOPS_TOOLS_BIN_DIR/kubeconform-$GITOPS_KUBECONFORM_VERSION/kubeconform}"
FLATE_BIN="${FLATE_BIN:-$GITOPS_TOOLS_BIN_DIR/flate-$GITOPS_FLATE_VERSION/flate}"
export GITOPS_PREVIEW_CACHE KUBE_APISERVER_BIN ETCD_BIN KUSTOMIZE_BIN HELM_BIN FLUX_BIN REGISTRY_BIN KUBECONFORM_BIN FLATE_BIN

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  # Executed, not sourced.
  set -euo pipefail
  case "${1:---print}" in
    --print | --check)
      missing=0
      for name in KUSTOMIZE_BIN HELM_BIN KUBE_APISERVER_BIN ETCD_BIN FLUX_BIN REGISTRY_BIN KUBECONFORM_BIN FLATE_BIN; do
        printf '%s=%s\n' "$name" "${!name}"
        if [[ ! -x "${!name}" ]]; then
          echo "tools-env: $name not built yet: ${!name} (run: bash test/cluster/build.sh)" >&2
          missing=1
        fi
      done
      if [[ "${1:-}" == "--check" && $missing -ne 0 ]]; then exit 1; fi
      ;;
    *)
      echo "usage: $0 [--print|--check]   (or: source $0)" >&2
      exit 2
      ;;
  esac
fi
