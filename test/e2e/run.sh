#!/usr/bin/env bash
# End-to-end tier: the packaged extension in a real VS Code (code-server 4.100 = VS Code 1.100),
# driven headless by Playwright over Debian's Chromium, against the local test cluster.
#   1. installs the tools (test/e2e/install.sh: apt packages if missing, code-server and
#      playwright-core in test/e2e/node_modules; cached),
#   2. starts a fresh test cluster (test/cluster/up.sh) and seeds it from examples/demo-repo
#      (test/e2e/seed.ts: what Flux would have applied, plus hand-made drift),
#   3. installs dist/gitops-preview.vsix (make package) into throwaway extension and user-data
#      dirs and starts code-server on a free loopback port on a throwaway copy of the demo repo,
#   4. runs test/e2e/scenarios/*.test.ts (node:test, one file at a time); screenshots go to
#      test/e2e/artifacts/ (E2E_ARTIFACTS),
#   5. always stops code-server and the cluster, by the PIDs it started.
# Extra arguments go to `node --test` (e.g. --test-name-pattern tree).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$here/../.." && pwd)"
cd "$repo_root"
log() { printf 'e2e/run.sh: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
t0=$SECONDS

vsix="${GITOPS_VSIX:-$repo_root/dist/gitops-preview.vsix}"
[[ -s "$vsix" ]] || die "no $vsix: run make package (bash scripts/package.sh) first"
[[ -d node_modules/tsx ]] || die "tsx is missing from node_modules (npm ci at the repo root)"
# E2E_SCENARIOS: a file-name glob to run some scenario files only (e.g. '05-*').
# E2E_SCENARIO_DIR=test/e2e/bench runs the measurements in real VS Code (npm run bench -- editor) instead.
scenario_dir="${E2E_SCENARIO_DIR:-test/e2e/scenarios}"
mapfile -t scenarios < <(find "$scenario_dir" -name "${E2E_SCENARIOS:-*}.test.ts" -type f | sort)
[[ ${#scenarios[@]} -gt 0 ]] || die "no $scenario_dir/*.test.ts"

bash "$here/install.sh"
t_install=$((SECONDS - t0))
bash test/cluster/build.sh >/dev/null
# shellcheck source=../cluster/tools-env.sh
source test/cluster/tools-env.sh
# shellcheck source=session.sh
source "$here/session.sh"

work="$(mktemp -d "${TMPDIR:-/tmp}/gitops-preview-e2e.XXXXXX")"
status=1
finish() {
  local rc=$?
  [[ $status -ne 1 || $rc -eq 0 ]] || status=$rc
  session_stop
  if [[ $status -eq 0 && "${GITOPS_E2E_KEEP:-}" != "1" ]]; then
    rm -rf "$work"
  else
    log "kept $work (code-server.log, cluster/logs, cluster/audit.log)"
  fi
  exit "$status"
}
trap finish EXIT
trap 'status=130; exit 130' INT
trap 'status=143; exit 143' TERM

t1=$SECONDS
export KUSTOMIZE_BIN HELM_BIN
session_start_cluster "$work/cluster"
t_cluster=$((SECONDS - t1))

t2=$SECONDS
workspace="$work/demo-repo"
cp -R examples/demo-repo "$workspace"
# The session's own caches (charts, builds): a scenario puts a chart in it as a fetch would, and
# the machine's own cache neither helps nor changes.
export GITOPS_PREVIEW_CACHE="$work/preview-cache"
session_start_code_server "$work" "$workspace" "$vsix" "$work/cluster/kubeconfig" 0
url="$session_url"
t_code_server=$((SECONDS - t2))

# --- scenarios --------------------------------------------------------------------------------
export E2E_URL="$url" E2E_WORKSPACE="$workspace" E2E_KUBECONFIG="$work/cluster/kubeconfig" E2E_USER_DATA="$work/user-data"
export E2E_ARTIFACTS="${E2E_ARTIFACTS:-$here/artifacts}"
mkdir -p "$E2E_ARTIFACTS"
log "code-server $url on $workspace (pid $session_cs_pid); running ${#scenarios[@]} scenario file(s)"
t3=$SECONDS
set +e
node --import tsx --test --test-concurrency=1 "$@" "${scenarios[@]}"
status=$?
set -e
t_scenarios=$((SECONDS - t3))
log "timings: install ${t_install}s, cluster+seed ${t_cluster}s, code-server+vsix ${t_code_server}s, scenarios ${t_scenarios}s, total $((SECONDS - t0))s"
log "screenshots in $E2E_ARTIFACTS"
exit "$status"
