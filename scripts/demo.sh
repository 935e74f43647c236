#!/usr/bin/env bash
# make demo: real VS Code (code-server) with the packaged extension on the example repository
# examples/demo-repo, against a local kube-apiserver that plays the demo cluster:
#   - the cluster holds what Flux would have applied from the repo, plus two hand-made changes
#     (ConfigMap demo/web-config and Deployment demo/web) for "Show Drift",
#   - the repo has one ordering mistake (infra-configs applies a ClusterIssuer without depending
#     on infra-crds, which applies its CRD) for the diagnostics.
# Prints the URL and runs until Ctrl-C, then stops code-server and the cluster.
#
#   make demo                           (builds, packages and builds the cluster tools first)
#   GITOPS_DEMO_PORT=8080 bash scripts/demo.sh
#
# The workspace is a fresh copy of examples/demo-repo under the demo dir, so edits made in the
# demo never touch the project's files; it is replaced on the next `make demo`.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"
log() { printf 'demo: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
t0=$SECONDS

vsix="${GITOPS_VSIX:-$repo_root/dist/gitops-preview.vsix}"
[[ -s "$vsix" ]] || die "no $vsix: run make demo (or make package) first"
[[ -d node_modules/tsx ]] || die "tsx is missing from node_modules (npm ci at the repo root)"

bash test/e2e/install.sh
# shellcheck source=../test/cluster/tools-env.sh
source test/cluster/tools-env.sh
bash test/cluster/tools-env.sh --check >/dev/null || die "cluster tools missing: run make tools"
export KUSTOMIZE_BIN HELM_BIN
# shellcheck source=../test/e2e/session.sh
source test/e2e/session.sh

demo_dir="${GITOPS_DEMO_DIR:-$GITOPS_PREVIEW_CACHE/demo}"
mkdir -p "$demo_dir"
demo_dir="$(cd "$demo_dir" && pwd)"
# A previous demo killed hard may have left its cluster up: stop it by its PID files.
bash test/cluster/down.sh "$demo_dir/cluster" >/dev/null 2>&1 || true

cleanup() {
  session_stop
  log "stopped code-server and the demo cluster"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

log "starting the demo cluster (etcd + kube-apiserver) and seeding it from examples/demo-repo"
session_start_cluster "$demo_dir/cluster"

workspace="$demo_dir/demo-repo"
rm -rf "$workspace"
cp -R examples/demo-repo "$workspace"
# A git repository, as a real GitOps checkout would be.
if command -v git >/dev/null 2>&1; then
  (cd "$workspace" && git init -q -b main && git add -A &&
    git -c user.name=demo -c user.email=demo@example.com commit -q -m "demo repository") || true
fi

rm -rf "$demo_dir/user-data" "$demo_dir/extensions"
session_start_code_server "$demo_dir" "$workspace" "$vsix" "$demo_dir/cluster/kubeconfig" "${GITOPS_DEMO_PORT:-0}"

cat >&2 <<EOF

  GitOps Preview demo is ready ($((SECONDS - t0))s):

      $session_url/?folder=$workspace

  Open it in a browser on this machine. What to look at:
    - the GitOps Preview icon in the activity bar: cluster "demo", its Kustomizations and HelmRelease;
    - Problems: infra-configs applies a ClusterIssuer before the Kustomization with its CRD;
      try editing clusters/demo/apps.yaml (dependsOn name) and use the quick fix;
    - right-click Kustomization "apps" > Show Drift: GREETING and replicas were changed by hand;
    - Reconcile asks for confirmation, then annotates the object in the cluster.
  Cluster: KUBECONFIG=$demo_dir/cluster/kubeconfig   (read-only user: kubeconfig-readonly)
  Logs:    $demo_dir/code-server.log, $demo_dir/cluster/logs/
  Press Ctrl-C to stop.

EOF
echo "$session_url/?folder=$workspace"
# Wait for code-server; Ctrl-C lands in the INT trap, which runs cleanup.
while kill -0 "$session_cs_pid" 2>/dev/null; do sleep 1; done
die "code-server exited (see $demo_dir/code-server.log)"
