#!/usr/bin/env bash
# Builds dist/gitops-preview.vsix: a production (minified) esbuild bundle, then `vsce package`
# from the root devDependency @vscode/vsce. The bundle already contains the runtime dependencies,
# so vsce runs with --no-dependencies; .vscodeignore keeps sources, tests and node_modules out.
#
#   bash scripts/package.sh            (or: make package)
#   GITOPS_VSIX=/path/out.vsix bash scripts/package.sh
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"
log() { printf 'package.sh: %s\n' "$*" >&2; }
out="${GITOPS_VSIX:-$repo_root/dist/gitops-preview.vsix}"
start=$SECONDS

[[ -x node_modules/.bin/vsce ]] || { log "ERROR: node_modules/.bin/vsce missing (run npm ci at the repo root)"; exit 1; }
[[ -f media/icon.png ]] || node scripts/icon.js >&2

bash scripts/build-wasm.sh
node esbuild.js --production
mkdir -p "$(dirname "$out")"
rm -f "$out"
# No repository URL is published yet; relative README links (screenshots under media/) are
# resolved by VS Code from the installed extension, so they are kept as they are.
node_modules/.bin/vsce package --no-dependencies --allow-missing-repository --no-rewrite-relative-links \
  --out "$out" </dev/null >&2
[[ -s "$out" ]] || { log "ERROR: vsce wrote no $out"; exit 1; }

# The bundle must not have dragged in sources or dependencies.
listing="$(node -e '
  const { execFileSync } = require("child_process");
  process.stdout.write(execFileSync("unzip", ["-Z1", process.argv[1]], { encoding: "utf8" }));
' "$out" 2>/dev/null || true)"
if [[ -n "$listing" ]] && grep -qE '^extension/(src|test|node_modules)/' <<<"$listing"; then
  log "ERROR: $out contains sources or node_modules:"; grep -E '^extension/(src|test|node_modules)/' <<<"$listing" | head >&2
  exit 1
fi
log "wrote $out ($(du -h "$out" | cut -f1), $(grep -c . <<<"$listing" || true) files) in $((SECONDS - start))s"
