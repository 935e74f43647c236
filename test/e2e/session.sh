# Shared by test/e2e/run.sh and scripts/demo.sh (source it; needs repo_root, log, die):
# a seeded test cluster and code-server with the packaged extension on a copy of a repository.
# Every process is started here by PID and stopped by session_stop, never by name.

session_cluster_dir=""
session_cs_pid=""

# session_start_cluster STATE_DIR: fresh etcd + kube-apiserver, seeded from examples/demo-repo.
session_start_cluster() {
  session_cluster_dir="$1"
  mkdir -p "$session_cluster_dir"
  bash "$repo_root/test/cluster/up.sh" "$session_cluster_dir" >/dev/null 2>"$session_cluster_dir/up.log" ||
    { cat "$session_cluster_dir/up.log" >&2; die "test cluster did not start"; }
  (cd "$repo_root" && node --import tsx test/e2e/seed.ts --kubeconfig "$session_cluster_dir/kubeconfig" \
    --repo examples/demo-repo >"$session_cluster_dir/seed.log") ||
    { cat "$session_cluster_dir/seed.log" >&2; die "seeding the cluster failed"; }
}

# session_start_code_server WORK_DIR WORKSPACE VSIX KUBECONFIG PORT: installs the .vsix into
# WORK_DIR/{user-data,extensions} and starts code-server on 127.0.0.1:PORT (0 = any free port).
# Sets session_url and session_cs_pid.
session_start_code_server() {
  local work="$1" workspace="$2" vsix="$3" kubeconfig="$4" port="$5"
  local code_server="$repo_root/test/e2e/node_modules/.bin/code-server"
  local user_data="$work/user-data" extensions="$work/extensions"
  mkdir -p "$user_data/User" "$extensions"
  node -e '
    const [file, kubeconfig, kustomize, helm] = process.argv.slice(1);
    require("fs").writeFileSync(file, JSON.stringify({
      "gitopsPreview.kubeconfig": kubeconfig,
      "security.workspace.trust.enabled": false,
      "workbench.startupEditor": "none",
      "workbench.tips.enabled": false,
      "workbench.welcomePage.walkthroughs.openOnInstall": false,
      "extensions.autoUpdate": false,
      "extensions.autoCheckUpdates": false,
      "extensions.ignoreRecommendations": true,
      "update.mode": "none",
      "telemetry.telemetryLevel": "off",
      "git.enabled": false,
      "files.autoSave": "off",
      "editor.minimap.enabled": false,
      "chat.commandCenter.enabled": false,
      "workbench.colorTheme": "Default Dark Modern"
    }, null, 2));
  ' "$user_data/User/settings.json" "$kubeconfig" "$KUSTOMIZE_BIN" "$HELM_BIN"
  # code-server keeps its own config and data under XDG dirs: point them into WORK_DIR.
  export XDG_CONFIG_HOME="$work/xdg-config" XDG_DATA_HOME="$work/xdg-data"
  "$code_server" --install-extension "$vsix" --force --extensions-dir "$extensions" --user-data-dir "$user_data" \
    >"$work/install-extension.log" 2>&1 || { cat "$work/install-extension.log" >&2; die "installing $vsix failed"; }

  if [[ "$port" == 0 ]]; then
    port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
  fi
  session_url="http://127.0.0.1:$port"
  # Own process group (setsid), so session_stop also ends the extension host and terminals.
  KUBECONFIG="$kubeconfig" setsid "$code_server" \
    --bind-addr "127.0.0.1:$port" --auth none --disable-telemetry --disable-update-check \
    --disable-workspace-trust --disable-getting-started-override \
    --config "$work/code-server.yaml" --user-data-dir "$user_data" --extensions-dir "$extensions" \
    "$workspace" </dev/null >"$work/code-server.log" 2>&1 &
  session_cs_pid=$!
  local i
  for ((i = 0; i < 300; i++)); do
    curl -fsS -o /dev/null "$session_url/healthz" 2>/dev/null && return 0
    kill -0 "$session_cs_pid" 2>/dev/null || { cat "$work/code-server.log" >&2; die "code-server exited"; }
    sleep 0.1
  done
  die "code-server not answering on $session_url (see $work/code-server.log)"
}

session_stop() {
  if [[ -n "$session_cs_pid" ]] && kill -0 "$session_cs_pid" 2>/dev/null; then
    kill -TERM -- "-$session_cs_pid" 2>/dev/null || kill -TERM "$session_cs_pid" 2>/dev/null || true
    local i
    for ((i = 0; i < 50; i++)); do kill -0 "$session_cs_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$session_cs_pid" 2>/dev/null || true
  fi
  session_cs_pid=""
  if [[ -n "$session_cluster_dir" ]]; then
    bash "$repo_root/test/cluster/down.sh" "$session_cluster_dir" >/dev/null 2>&1 || true
  fi
}
