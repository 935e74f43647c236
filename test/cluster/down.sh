#!/usr/bin/env bash
# Stops the cluster started by up.sh in STATE_DIR: kube-apiserver, then etcd, by the PIDs in
# STATE_DIR/*.pid (never by process name). SIGTERM, wait up to 20s, then SIGKILL. Removes the
# PID files. Keeps the rest of STATE_DIR (audit.log, logs/, kubeconfigs) for inspection.
#
#   bash test/cluster/down.sh [STATE_DIR]
set -euo pipefail

state_dir="${1:-${GITOPS_PREVIEW_CACHE:-$HOME/.cache/gitops-preview}/cluster}"
log() { printf 'down.sh: %s\n' "$*" >&2; }

if [[ ! -d "$state_dir" ]]; then
  log "no state dir $state_dir: nothing to stop"
  exit 0
fi
state_dir="$(cd "$state_dir" && pwd)"

# alive PID: running and not a zombie (an unreaped child of a PID 1 that never reaps).
alive() {
  kill -0 "$1" 2>/dev/null || return 1
  local st
  st="$(sed -n 's/^[0-9]* (.*) \([A-Za-z]\).*/\1/p' "/proc/$1/stat" 2>/dev/null || true)"
  [[ "$st" != "Z" && "$st" != "X" ]]
}

# stop NAME: stops the process in STATE_DIR/NAME.pid if it is still ours.
stop() {
  local name="$1" pidfile="$state_dir/$1.pid" pid
  [[ -f "$pidfile" ]] || return 0
  pid="$(tr -dc '0-9' <"$pidfile")"
  if [[ -z "$pid" ]] || ! alive "$pid"; then
    rm -f "$pidfile"
    return 0
  fi
  # Guard against PID reuse: our processes have STATE_DIR in their command line.
  if [[ -r "/proc/$pid/cmdline" ]] && ! tr '\0' '\n' <"/proc/$pid/cmdline" | grep -qF "$state_dir"; then
    log "pid $pid in $pidfile is not our $name (PID reused?); not killing it"
    rm -f "$pidfile"
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  local i
  for ((i = 0; i < 200; i++)); do
    alive "$pid" || break
    sleep 0.1
  done
  if alive "$pid"; then
    log "$name (pid $pid) did not exit after SIGTERM; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
      alive "$pid" || break
      sleep 0.1
    done
  fi
  if alive "$pid"; then
    log "$name (pid $pid) is still running"
    return 1
  fi
  rm -f "$pidfile"
  log "stopped $name (pid $pid)"
}

stop kube-apiserver
stop etcd
rm -f "$state_dir/server"
