#!/usr/bin/env bash
# Installs the e2e tier's tools, idempotently and without any download outside the package
# registries: Debian's chromium, ripgrep and libkrb5-dev (apt, only what is missing), then
# code-server + playwright-core into test/e2e/node_modules (its own lockfile, never the root
# npm ci). Prints nothing on stdout; progress on stderr. A stamp file skips the npm part when
# package-lock.json has not changed since the last successful install.
#
# Known obstacles this script works around (all offline):
#  - code-server's postinstall refuses root unless npm_config_unsafe_perm=true;
#  - its native modules (kerberos, node-pty, …) are built by node-gyp: need libkrb5-dev, the
#    Node headers (nodedir=/usr on Debian's nodejs) and npm_config_yes=true for `npx node-gyp`;
#  - @vscode/ripgrep's postinstall downloads rg from GitHub unless its cache
#    ($TMPDIR/vscode-ripgrep-cache-<version>/ripgrep-<tag>-<target>.tar.gz) holds a tarball
#    with an `rg` binary: we seed it from Debian's /usr/bin/rg.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
log() { printf 'e2e/install.sh: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
start=$SECONDS

# --- Debian packages -------------------------------------------------------------------------
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v rg >/dev/null 2>&1 || missing+=(ripgrep)
[[ -f /usr/include/krb5.h || -f /usr/include/krb5/krb5.h ]] || missing+=(libkrb5-dev)
command -v make >/dev/null 2>&1 || missing+=(make)
command -v g++ >/dev/null 2>&1 || missing+=(g++)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if [[ ${#missing[@]} -gt 0 ]]; then
  [[ "$(id -u)" == 0 ]] || die "missing Debian packages: ${missing[*]} (apt-get install -y ${missing[*]})"
  log "apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# --- npm packages ----------------------------------------------------------------------------
stamp="node_modules/.e2e-install-stamp"
lock_sum="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$lock_sum" && -f node_modules/code-server/lib/vscode/node_modules/.package-lock.json ]]; then
  log "code-server and playwright-core already installed ($((SECONDS - start))s)"
  exit 0
fi

# Native modules need Node's headers; node-gyp would otherwise download them.
if [[ -z "${npm_config_nodedir:-}" ]]; then
  node_prefix="$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")"
  if [[ -f "$node_prefix/include/node/node.h" ]]; then
    export npm_config_nodedir="$node_prefix"
  else
    log "warning: no Node headers under $node_prefix/include/node; node-gyp may try to download them"
  fi
fi
export npm_config_unsafe_perm=true npm_config_yes=true npm_config_audit=false npm_config_fund=false

log "npm ci --ignore-scripts (code-server, playwright-core)"
npm ci --ignore-scripts --no-audit --no-fund >&2

# Seed @vscode/ripgrep's download cache for every version code-server's nested installs pin.
tmp_root="${TMPDIR:-/tmp}"
rg_bin="$(command -v rg)"
mapfile -t rg_versions < <(node -e '
  const fs = require("fs");
  const out = new Set();
  for (const f of ["lib/vscode/npm-shrinkwrap.json", "lib/vscode/extensions/npm-shrinkwrap.json",
                   "lib/vscode/package-lock.json", "lib/vscode/extensions/package-lock.json"]) {
    const p = "node_modules/code-server/" + f;
    if (!fs.existsSync(p)) continue;
    const pk = JSON.parse(fs.readFileSync(p, "utf8")).packages || {};
    for (const [k, v] of Object.entries(pk)) if (k.endsWith("node_modules/@vscode/ripgrep")) out.add(v.version);
  }
  console.log([...out].join("\n"));
')
target="x86_64-unknown-linux-musl"
case "$(uname -m)" in
  x86_64) ;;
  aarch64) target="aarch64-unknown-linux-musl" ;;
  *) die "unsupported architecture $(uname -m)" ;;
esac
pack_dir="$(mktemp -d "$tmp_root/e2e-rg-pack.XXXXXX")"
trap 'rm -rf "$pack_dir"' EXIT
for v in "${rg_versions[@]}"; do
  [[ -n "$v" ]] || continue
  # The tag (e.g. v13.0.0-10) lives in the package's postinstall.js: read it from the package.
  (cd "$pack_dir" && npm pack --silent "@vscode/ripgrep@$v" >/dev/null)
  tar xzf "$pack_dir/vscode-ripgrep-$v.tgz" -C "$pack_dir" package/lib/postinstall.js
  tag="$(sed -n "s/^const VERSION = '\(v[^']*\)'.*/\1/p" "$pack_dir/package/lib/postinstall.js")"
  [[ -n "$tag" ]] || die "cannot read the ripgrep tag of @vscode/ripgrep@$v"
  cache="$tmp_root/vscode-ripgrep-cache-$v"
  tarball="$cache/ripgrep-$tag-$target.tar.gz"
  if [[ ! -s "$tarball" ]]; then
    mkdir -p "$cache" "$pack_dir/rg"
    cp "$rg_bin" "$pack_dir/rg/rg"
    tar czf "$tarball" -C "$pack_dir/rg" rg
    log "seeded $tarball from $rg_bin"
  fi
done

# argon2 (loaded by code-server at start even with --auth none) would fetch a prebuilt binary
# from GitHub before falling back to a build: build it from source straight away.
log "building argon2 from source"
npm_config_build_from_source=true npm rebuild argon2 >&2 || die "building argon2 failed (see above)"

log "running code-server's postinstall (builds VS Code's native modules; a few minutes)"
# (kerberos' prebuild-install first tries GitHub, fails at once without network, then builds with
# node-gyp; build_from_source is not set globally because @parcel/watcher would then rebuild too.)
npm rebuild code-server --foreground-scripts >&2 || die "code-server's postinstall failed (see above)"
[[ -x node_modules/code-server/lib/vscode/node_modules/@vscode/ripgrep/bin/rg ]] ||
  die "code-server installed without ripgrep"
# playwright-core has no install script that matters: it never downloads browsers here.
echo "$lock_sum" >"$stamp"
log "installed code-server $(node -p 'require("./node_modules/code-server/package.json").version') and playwright-core $(node -p 'require("./node_modules/playwright-core/package.json").version') in $((SECONDS - start))s"
