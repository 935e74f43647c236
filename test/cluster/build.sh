#!/usr/bin/env bash
# Builds the test tools from the Go module proxy into a versioned cache outside the repo:
#   ${GITOPS_PREVIEW_CACHE:-$HOME/.cache/gitops-preview}/bin/<name>-<version>/<name>
# Idempotent: a binary that already exists is not rebuilt. Progress and timings go to
# stderr; the final NAME=path lines (same as tools-env.sh --print) go to stdout.
#
#   bash test/cluster/build.sh                      # all: kube-apiserver etcd kustomize helm flux registry kubeconform flate
#   bash test/cluster/build.sh kustomize helm       # only some
#
# Environment: GITOPS_PREVIEW_CACHE (cache root), GITOPS_BUILD_PARALLELISM (go build -p,
# default: number of CPUs), GOFLAGS/GOPROXY as usual.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=tools-env.sh
source "$here/tools-env.sh"

log() { printf 'build.sh: %s\n' "$*" >&2; }

if ! command -v go >/dev/null 2>&1; then
  if [[ -x /usr/local/go/bin/go ]]; then
    export PATH="/usr/local/go/bin:$PATH"
  else
    log "go is required (Go >= 1.26 for helm $GITOPS_HELM_VERSION)"
    exit 1
  fi
fi

export CGO_ENABLED=0 GOWORK=off
parallelism="${GITOPS_BUILD_PARALLELISM:-$(nproc 2>/dev/null || echo 2)}"
buildflags=(-p="$parallelism" -trimpath)

kube_ldflags() {
  local v="$GITOPS_KUBE_VERSION" major minor
  major="${v#v}"; major="${major%%.*}"
  minor="${v#v*.}"; minor="${minor%%.*}"
  local f="-s -w"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    f+=" -X $pkg.gitVersion=$v -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
  done
  printf '%s' "$f"
}

# build_flux VERSION OUTDIR: the flux CLI from its module. cmd/flux embeds manifests/*.yaml,
# which the release process generates and the module lacks, so a writable copy of the module
# gets a placeholder there; only `flux install`/`bootstrap` read it, never `flux build`.
build_flux() {
  local version="$1" out="$2" modroot src
  modroot="$(cd "$out" && go mod download -json "github.com/fluxcd/flux2/v2@$version" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  [[ -d "$modroot/cmd/flux" ]] || { log "flux $version: module download failed"; return 1; }
  src="$out/src"
  cp -r "$modroot" "$src"
  chmod -R u+w "$src"
  mkdir -p "$src/cmd/flux/manifests"
  printf '# placeholder: the flux CLI built for `flux build` only (test/cluster/build.sh)\n' \
    >"$src/cmd/flux/manifests/placeholder.yaml"
  (cd "$src" && go build "${buildflags[@]}" -ldflags "-s -w -X main.VERSION=${version#v}" \
    -o "$out/flux" ./cmd/flux)
}

# run_build NAME VERSION OUTDIR: builds NAME into OUTDIR/NAME.
run_build() {
  local name="$1" version="$2" out="$3"
  case "$name" in
    kube-apiserver)
      (cd "$here" && go build "${buildflags[@]}" -ldflags "$(kube_ldflags)" \
        -o "$out/$name" k8s.io/kubernetes/cmd/kube-apiserver)
      ;;
    etcd)
      # go.etcd.io/etcd/server/v3 is pinned in test/cluster/go.mod (same graph as kube-apiserver).
      (cd "$here" && go build "${buildflags[@]}" -ldflags "-s -w" -o "$out/$name" ./cmd/etcd)
      ;;
    kustomize)
      (cd "$out" && GOBIN="$out" go install "${buildflags[@]}" -ldflags "-s -w" \
        "sigs.k8s.io/kustomize/kustomize/v5@$version")
      ;;
    helm)
      (cd "$out" && GOBIN="$out" go install "${buildflags[@]}" \
        -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$version -X helm.sh/helm/v3/internal/version.gitTreeState=clean" \
        "helm.sh/helm/v3/cmd/helm@$version")
      ;;
    flux)
      build_flux "$version" "$out"
      ;;
    registry)
      (cd "$out" && GOBIN="$out" go install "${buildflags[@]}" -ldflags "-s -w" \
        "github.com/distribution/distribution/v3/cmd/registry@$version")
      ;;
    kubeconform)
      # -X main.version as its release builds stamp it, so `kubeconform -v` names the version.
      (cd "$out" && GOBIN="$out" go install "${buildflags[@]}" -ldflags "-s -w -X main.version=$version" \
        "github.com/yannh/kubeconform/cmd/kubeconform@$version")
      ;;
    flate)
      # Its go.mod needs Go >= 1.27: this build alone runs with GOTOOLCHAIN pinned (the go
      # command fetches that toolchain from the module proxy). -X main.version as its releases do.
      (cd "$out" && GOTOOLCHAIN="$GITOPS_FLATE_GOTOOLCHAIN" GOBIN="$out" go install "${buildflags[@]}" \
        -ldflags "-s -w -X main.version=${version#v}" \
        "github.com/home-operations/flate/cmd/flate@$version")
      ;;
    *)
      log "unknown tool: $name"
      return 1
      ;;
  esac
}

# build_one NAME VERSION TARGET: builds into a temp dir, then moves the binary in place.
build_one() {
  local name="$1" version="$2" target="$3"
  if [[ -x "$target" ]]; then
    log "$name $version: cached at $target"
    return 0
  fi
  local dir tmp start end
  dir="$(dirname "$target")"
  mkdir -p "$dir"
  tmp="$(mktemp -d "$dir/.build.XXXXXX")"
  start=$(date +%s)
  log "$name $version: building ..."
  if ! run_build "$name" "$version" "$tmp"; then
    rm -rf "$tmp"
    rmdir "$dir" 2>/dev/null || true
    log "$name $version: build FAILED after $(($(date +%s) - start))s"
    return 1
  fi
  mv -f "$tmp/$name" "$target"
  rm -rf "$tmp"
  end=$(date +%s)
  log "$name $version: built in $((end - start))s -> $target"
  timings+=("$name $version: $((end - start))s")
}

tools=("$@")
if [[ ${#tools[@]} -eq 0 ]]; then
  # kube-apiserver first: slowest, and etcd then reuses most of its build cache.
  tools=(kube-apiserver etcd kustomize helm flux registry kubeconform flate)
fi

timings=()
total_start=$(date +%s)
for t in "${tools[@]}"; do
  case "$t" in
    kube-apiserver) build_one kube-apiserver "$GITOPS_KUBE_VERSION" "$KUBE_APISERVER_BIN" ;;
    etcd) build_one etcd "$GITOPS_ETCD_VERSION" "$ETCD_BIN" ;;
    kustomize) build_one kustomize "$GITOPS_KUSTOMIZE_VERSION" "$KUSTOMIZE_BIN" ;;
    helm) build_one helm "$GITOPS_HELM_VERSION" "$HELM_BIN" ;;
    flux) build_one flux "$GITOPS_FLUX_VERSION" "$FLUX_BIN" ;;
    registry) build_one registry "$GITOPS_REGISTRY_VERSION" "$REGISTRY_BIN" ;;
    kubeconform) build_one kubeconform "$GITOPS_KUBECONFORM_VERSION" "$KUBECONFORM_BIN" ;;
    flate) build_one flate "$GITOPS_FLATE_VERSION" "$FLATE_BIN" ;;
    *) log "unknown tool: $t (expected kube-apiserver, etcd, kustomize, helm, flux, registry, kubeconform, flate)"; exit 2 ;;
  esac
done
if [[ ${#timings[@]} -gt 0 ]]; then
  log "built: ${timings[*]}; total $(($(date +%s) - total_start))s"
fi

bash "$here/tools-env.sh" --print
