#!/usr/bin/env bash
# Integration tests against a real kube-apiserver (test/cluster):
#   1. builds the tools if missing (test/cluster/build.sh; cached, no-op when built),
#   2. starts etcd + kube-apiserver in a fresh temporary state dir (test/cluster/up.sh),
#   3. runs test/integration/**/*.test.ts with node:test + tsx, one file at a time, with
#      GITOPS_TEST_KUBECONFIG, GITOPS_TEST_KUBECONFIG_READONLY, GITOPS_TEST_AUDIT_LOG,
#      GITOPS_TEST_STATE_DIR, GITOPS_TEST_SERVER, KUSTOMIZE_BIN, HELM_BIN, REGISTRY_BIN in the environment,
#   4. always stops the cluster (trap on EXIT). Exit code = the tests' exit code.
# The state dir (kubeconfigs, audit.log, logs/) is removed after a pass and kept after a failure;
# GITOPS_TEST_KEEP_STATE=1 always keeps it. Extra arguments go to `node --test`.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$here/../.." && pwd)"
cluster_dir="$repo_root/test/cluster"
cd "$repo_root"

log() { printf 'run.sh: %s\n' "$*" >&2; }

mapfile -t test_files < <(find test/integration -name '*.test.ts' -type f | sort)
if [[ ${#test_files[@]} -eq 0 ]]; then
  log "no test/integration/**/*.test.ts files: nothing to run"
  exit 0
fi
if [[ ! -d node_modules/tsx ]]; then
  log "tsx is missing from node_modules (npm ci / npm install at the repo root)"
  exit 1
fi

bash "$cluster_dir/build.sh" >/dev/null
bash "$repo_root/scripts/build-wasm.sh"
# shellcheck source=../cluster/tools-env.sh
source "$cluster_dir/tools-env.sh"

state_dir="$(mktemp -d "${TMPDIR:-/tmp}/gitops-preview-it.XXXXXX")"
status=1
finish() {
  local rc=$?
  [[ $status -ne 1 || $rc -eq 0 ]] || status=$rc
  bash "$cluster_dir/down.sh" "$state_dir" || true
  if [[ $status -eq 0 && "${GITOPS_TEST_KEEP_STATE:-}" != "1" ]]; then
    rm -rf "$state_dir"
  else
    log "cluster state kept in $state_dir (logs/, audit.log, kubeconfigs)"
  fi
  exit "$status"
}
trap finish EXIT
trap 'status=130; exit 130' INT
trap 'status=143; exit 143' TERM

bash "$cluster_dir/up.sh" "$state_dir" >/dev/null

export GITOPS_TEST_STATE_DIR="$state_dir"
export GITOPS_TEST_KUBECONFIG="$state_dir/kubeconfig"
export GITOPS_TEST_KUBECONFIG_READONLY="$state_dir/kubeconfig-readonly"
export GITOPS_TEST_AUDIT_LOG="$state_dir/audit.log"
GITOPS_TEST_SERVER="$(cat "$state_dir/server")"
export GITOPS_TEST_SERVER KUSTOMIZE_BIN HELM_BIN KUBE_APISERVER_BIN ETCD_BIN REGISTRY_BIN
# Keep tests away from a developer's real cluster.
export KUBECONFIG="$GITOPS_TEST_KUBECONFIG"

log "running ${#test_files[@]} test file(s) against $GITOPS_TEST_SERVER"
set +e
node --import tsx --test --test-concurrency=1 "$@" "${test_files[@]}"
status=$?
set -e
exit "$status"
