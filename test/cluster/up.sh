#!/usr/bin/env bash
# Starts a throwaway etcd + kube-apiserver on 127.0.0.1 (free ports), with RBAC, client
# certificate auth, an audit log and the Flux CRDs installed. No controller-manager, no
# scheduler, no nodes: objects are stored and validated, nothing reconciles them.
#
#   bash test/cluster/up.sh [STATE_DIR]
#   eval "$(bash test/cluster/up.sh)"     # progress goes to stderr; stdout is exactly one line:
#   export KUBECONFIG=<STATE_DIR>/kubeconfig
#
# STATE_DIR (default ${GITOPS_PREVIEW_CACHE:-$HOME/.cache/gitops-preview}/cluster) gets:
#   kubeconfig            admin (group system:masters)
#   kubeconfig-readonly   user gitops-preview-readonly: get/list/watch on everything, nothing else
#   audit.log             JSON lines, one audit.k8s.io/v1 Event per request (see audit-policy.yaml)
#   cluster.env           KUBECONFIG/GITOPS_TEST_* lines for the test runner
#   pki/ etcd-data/ logs/ etcd.pid kube-apiserver.pid
# Every run starts from an empty etcd. If the cluster in STATE_DIR is already up and healthy,
# it is reused as is. Stop it with test/cluster/down.sh [STATE_DIR].
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$here/../.." && pwd)"
# shellcheck source=tools-env.sh
source "$here/tools-env.sh"

state_dir="${1:-$GITOPS_PREVIEW_CACHE/cluster}"
mkdir -p "$state_dir"
state_dir="$(cd "$state_dir" && pwd)"
shared_dir="${GITOPS_SHARED_DIR:-$repo_root/../shared}"
crd_dir="$shared_dir/flux-crds"
ready_timeout="${GITOPS_CLUSTER_TIMEOUT:-90}"

log() { printf 'up.sh: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

for tool in openssl curl node; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool is required"
done
for bin in "$ETCD_BIN" "$KUBE_APISERVER_BIN"; do
  [[ -x "$bin" ]] || die "missing $bin (run: bash test/cluster/build.sh)"
done
ls "$crd_dir"/*.yaml >/dev/null 2>&1 || die "no Flux CRDs in $crd_dir (set GITOPS_SHARED_DIR)"

pki="$state_dir/pki"
admin_kubeconfig="$state_dir/kubeconfig"
readonly_kubeconfig="$state_dir/kubeconfig-readonly"
audit_log="$state_dir/audit.log"

# --- reuse a healthy running cluster ------------------------------------------------------
pid_alive() { [[ -f "$1" ]] && kill -0 "$(cat "$1")" 2>/dev/null; }
if pid_alive "$state_dir/kube-apiserver.pid" && pid_alive "$state_dir/etcd.pid" && [[ -f "$state_dir/server" ]]; then
  if curl -fsS --max-time 5 --cacert "$pki/ca.crt" --cert "$pki/admin.crt" --key "$pki/admin.key" \
    "$(cat "$state_dir/server")/readyz" >/dev/null 2>&1; then
    log "cluster in $state_dir is already running at $(cat "$state_dir/server")"
    echo "export KUBECONFIG=$admin_kubeconfig"
    exit 0
  fi
fi
# Anything left over (crashed or half-started cluster) is stopped first.
bash "$here/down.sh" "$state_dir" >&2

rm -rf "$pki" "$state_dir/etcd-data" "$state_dir/logs" "$admin_kubeconfig" "$readonly_kubeconfig" \
  "$audit_log" "$state_dir/server" "$state_dir/cluster.env"
mkdir -p "$pki" "$state_dir/logs"
chmod 700 "$pki"

started_ok=0
cleanup_on_failure() {
  if [[ $started_ok -eq 0 ]]; then
    log "startup failed; last lines of the logs:"
    for f in "$state_dir"/logs/*.log; do
      [[ -f "$f" ]] && { echo "--- $f" >&2; tail -n 25 "$f" >&2; }
    done
    bash "$here/down.sh" "$state_dir" >&2 || true
  fi
}
trap cleanup_on_failure EXIT

# --- free ports (the kernel picks them; tiny race until the servers bind) -----------------
read -r etcd_client_port etcd_peer_port apiserver_port < <(node -e '
  const net = require("net");
  const servers = [0, 1, 2].map(() => net.createServer());
  Promise.all(servers.map((s) => new Promise((r) => s.listen(0, "127.0.0.1", () => r(s.address().port)))))
    .then((ports) => { console.log(ports.join(" ")); servers.forEach((s) => s.close()); });
')
server="https://127.0.0.1:$apiserver_port"
log "state dir $state_dir; etcd 127.0.0.1:$etcd_client_port; kube-apiserver $server"

# --- certificates (EC P-256, valid 1 year) --------------------------------------------------
ossl() {
  openssl "$@" 2>"$pki/openssl.err" || { cat "$pki/openssl.err" >&2; return 1; }
  rm -f "$pki/openssl.err"
}
newkey() { ossl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1"; }
ossl req -x509 -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-256 -keyout "$pki/ca.key" \
  -out "$pki/ca.crt" -days 365 -subj "/CN=gitops-preview-test-ca"
# sign NAME SUBJECT EXTFILE-CONTENT
sign() {
  local name="$1" subj="$2" ext="$3"
  newkey "$pki/$name.key"
  ossl req -new -key "$pki/$name.key" -out "$pki/$name.csr" -subj "$subj"
  printf '%s\n' "$ext" >"$pki/$name.ext"
  ossl x509 -req -in "$pki/$name.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
    -out "$pki/$name.crt" -days 365 -extfile "$pki/$name.ext"
  rm -f "$pki/$name.csr" "$pki/$name.ext"
}
sign apiserver "/CN=kube-apiserver" "basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
client_ext="basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=clientAuth"
sign admin "/O=system:masters/CN=gitops-preview-admin" "$client_ext"
sign readonly "/O=gitops-preview:readonly/CN=gitops-preview-readonly" "$client_ext"
newkey "$pki/sa.key"
ossl pkey -in "$pki/sa.key" -pubout -out "$pki/sa.pub"
chmod 600 "$pki"/*.key

# --- kubeconfigs (credentials embedded, so they can be copied anywhere) ----------------------
b64() { base64 <"$1" | tr -d '\n'; }
write_kubeconfig() {
  local file="$1" user="$2" cert="$3" key="$4"
  : >"$file"
  chmod 600 "$file"
  cat >"$file" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: gitops-preview-test
  cluster:
    server: $server
    certificate-authority-data: $(b64 "$pki/ca.crt")
users:
- name: $user
  user:
    client-certificate-data: $(b64 "$cert")
    client-key-data: $(b64 "$key")
contexts:
- name: $user@gitops-preview-test
  context:
    cluster: gitops-preview-test
    user: $user
    namespace: default
current-context: $user@gitops-preview-test
EOF
}
write_kubeconfig "$admin_kubeconfig" gitops-preview-admin "$pki/admin.crt" "$pki/admin.key"
write_kubeconfig "$readonly_kubeconfig" gitops-preview-readonly "$pki/readonly.crt" "$pki/readonly.key"

# --- etcd -----------------------------------------------------------------------------------
nohup "$ETCD_BIN" \
  --name=gitops-preview-test \
  --data-dir="$state_dir/etcd-data" \
  --listen-client-urls="http://127.0.0.1:$etcd_client_port" \
  --advertise-client-urls="http://127.0.0.1:$etcd_client_port" \
  --listen-peer-urls="http://127.0.0.1:$etcd_peer_port" \
  --initial-advertise-peer-urls="http://127.0.0.1:$etcd_peer_port" \
  --initial-cluster="gitops-preview-test=http://127.0.0.1:$etcd_peer_port" \
  --unsafe-no-fsync \
  --log-outputs=stderr \
  </dev/null >"$state_dir/logs/etcd.log" 2>&1 &
echo $! >"$state_dir/etcd.pid"

deadline=$((SECONDS + ready_timeout))
until curl -fsS --max-time 2 "http://127.0.0.1:$etcd_client_port/health" 2>/dev/null | grep -q '"health":"true"'; do
  pid_alive "$state_dir/etcd.pid" || die "etcd exited (see $state_dir/logs/etcd.log)"
  ((SECONDS < deadline)) || die "etcd not healthy after ${ready_timeout}s"
  sleep 0.2
done
log "etcd is healthy (pid $(cat "$state_dir/etcd.pid"))"

# --- kube-apiserver -------------------------------------------------------------------------
cp "$here/audit-policy.yaml" "$state_dir/audit-policy.yaml"
nohup "$KUBE_APISERVER_BIN" \
  --etcd-servers="http://127.0.0.1:$etcd_client_port" \
  --bind-address=127.0.0.1 \
  --advertise-address=127.0.0.1 \
  --secure-port="$apiserver_port" \
  --cert-dir="$pki" \
  --tls-cert-file="$pki/apiserver.crt" \
  --tls-private-key-file="$pki/apiserver.key" \
  --client-ca-file="$pki/ca.crt" \
  --authorization-mode=RBAC \
  --anonymous-auth=false \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-account-key-file="$pki/sa.pub" \
  --service-account-signing-key-file="$pki/sa.key" \
  --service-cluster-ip-range=10.0.0.0/24 \
  --endpoint-reconciler-type=none \
  --disable-admission-plugins=ServiceAccount \
  --audit-policy-file="$state_dir/audit-policy.yaml" \
  --audit-log-path="$audit_log" \
  --audit-log-format=json \
  --audit-log-mode=blocking \
  --audit-log-maxsize=0 \
  --profiling=false \
  </dev/null >"$state_dir/logs/kube-apiserver.log" 2>&1 &
echo $! >"$state_dir/kube-apiserver.pid"

admin_curl() {
  curl -sS --max-time 30 -A gitops-preview-test-harness --cacert "$pki/ca.crt" --cert "$pki/admin.crt" --key "$pki/admin.key" "$@"
}
deadline=$((SECONDS + ready_timeout))
until [[ "$(admin_curl --max-time 3 "$server/readyz" 2>/dev/null || true)" == "ok" ]]; do
  pid_alive "$state_dir/kube-apiserver.pid" || die "kube-apiserver exited (see $state_dir/logs/kube-apiserver.log)"
  ((SECONDS < deadline)) || die "kube-apiserver not ready after ${ready_timeout}s"
  sleep 0.3
done
echo "$server" >"$state_dir/server"
log "kube-apiserver is ready (pid $(cat "$state_dir/kube-apiserver.pid")): $(admin_curl "$server/version" | tr -d ' \n')"

# --- server-side apply helper ---------------------------------------------------------------
# apply URL FILE: PATCH application/apply-patch+yaml (creates or updates), fails on HTTP >= 400.
apply() {
  local url="$1" file="$2" out code
  out="$(mktemp)"
  code="$(admin_curl -o "$out" -w '%{http_code}' -X PATCH \
    -H 'Content-Type: application/apply-patch+yaml' --data-binary "@$file" \
    "$url?fieldManager=gitops-preview-test-harness&force=true")"
  if [[ "$code" -ge 400 || "$code" == "000" ]]; then
    log "apply $file -> HTTP $code"; head -c 2000 "$out" >&2; echo >&2; rm -f "$out"; return 1
  fi
  rm -f "$out"
}

# --- read-only user RBAC --------------------------------------------------------------------
apply "$server/apis/rbac.authorization.k8s.io/v1/clusterroles/gitops-preview-readonly" \
  "$here/rbac/readonly-clusterrole.yaml"
apply "$server/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/gitops-preview-readonly" \
  "$here/rbac/readonly-clusterrolebinding.yaml"
log "RBAC for user gitops-preview-readonly applied"

# --- Flux CRDs ------------------------------------------------------------------------------
crd_names=()
for f in "$crd_dir"/*.yaml; do
  # metadata.name: the first two-space-indented "name:" after the top-level "metadata:".
  name="$(awk '/^metadata:/{m=1; next} m && /^[^ #]/{m=0} m && /^  name:/{print $2; exit}' "$f")"
  [[ -n "$name" ]] || die "cannot find metadata.name in $f"
  apply "$server/apis/apiextensions.k8s.io/v1/customresourcedefinitions/$name" "$f"
  crd_names+=("$name")
done
# Established first; then every served version must answer a list with 200 (right after the
# CRD is Established, its storage can still answer 429 "storage is (re)initializing").
served_paths() {
  node -e '
    let s = "";
    process.stdin.on("data", (d) => (s += d)).on("end", () => {
      let c;
      try { c = JSON.parse(s); } catch { process.exit(1); }
      const ok = (c.status?.conditions ?? []).some((x) => x.type === "Established" && x.status === "True");
      if (!ok) process.exit(1);
      for (const v of c.spec.versions.filter((v) => v.served)) {
        console.log(`/apis/${c.spec.group}/${v.name}/${c.spec.names.plural}`);
      }
    });'
}
deadline=$((SECONDS + ready_timeout))
for name in "${crd_names[@]}"; do
  until paths="$(admin_curl "$server/apis/apiextensions.k8s.io/v1/customresourcedefinitions/$name" 2>/dev/null | served_paths)"; do
    ((SECONDS < deadline)) || die "CRD $name not Established after ${ready_timeout}s"
    sleep 0.2
  done
  for p in $paths; do
    until [[ "$(admin_curl -o /dev/null -w '%{http_code}' "$server$p?limit=1" 2>/dev/null || true)" == "200" ]]; do
      ((SECONDS < deadline)) || die "$p not served after ${ready_timeout}s"
      sleep 0.2
    done
  done
done
log "${#crd_names[@]} Flux CRDs Established: ${crd_names[*]}"

cat >"$state_dir/cluster.env" <<EOF
KUBECONFIG=$admin_kubeconfig
GITOPS_TEST_KUBECONFIG=$admin_kubeconfig
GITOPS_TEST_KUBECONFIG_READONLY=$readonly_kubeconfig
GITOPS_TEST_AUDIT_LOG=$audit_log
GITOPS_TEST_STATE_DIR=$state_dir
GITOPS_TEST_SERVER=$server
EOF

started_ok=1
log "admin kubeconfig:     $admin_kubeconfig"
log "read-only kubeconfig: $readonly_kubeconfig"
log "audit log:            $audit_log"
log "stop with: bash test/cluster/down.sh $state_dir"
echo "export KUBECONFIG=$admin_kubeconfig"
