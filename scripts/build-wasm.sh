#!/usr/bin/env bash
# Compiles the WebAssembly modules of wasm/ (kustomize, helm) with the local Go toolchain
# (GOOS=wasip1 GOARCH=wasm, reactors) into a cache keyed by the hash of their Go sources and
# the Go version, then copies them into dist/wasm/ where the bundle and the .vsix take them from.
# A second run with unchanged sources compiles nothing.
#
#   bash scripts/build-wasm.sh              (make build runs it)
#   GO_BUILD_P=1 bash scripts/build-wasm.sh  passes -p 1 to go build (gentler on a shared machine)
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"
log() { printf 'build-wasm.sh: %s\n' "$*" >&2; }

go_bin="$(command -v go || true)"
[[ -n "$go_bin" ]] || { [[ -x /usr/local/go/bin/go ]] && go_bin=/usr/local/go/bin/go; }
[[ -n "$go_bin" ]] || { log "ERROR: go is required to compile wasm/ (Go >= 1.26)"; exit 1; }

modules=(kustomize helm)

# The kustomize module is compiled against a patched copy of kustomize's api module: files added
# (wasm/_overlay/kustomize-api) and places redirected to them: in internal/target/multitransformer.go,
# so transformer annotations that the build removes at its end are not recorded; in
# resource/factory.go, so a long-lived instance parses a file's text once; TransformerConfig.Merge in
# internal/plugins/builtinconfig, so merges of equal configurations are answered once; four YAML/JSON
# conversions, kept by text (internal/yamljson; docs/fidelity.md lists them all). The copy is
# made here from the module cache and used through a Go workspace file (go build -overlay may not
# replace files of the module cache); a kustomize version without those calls stops the build.
# Replaces the one line `from` of a copied kustomize file by `to` (a call of internal/yamljson) and
# imports that package; a kustomize version without that line stops the build.
redirect_yaml_to_json() {
  local file="$1" from="$2" to="$3"
  grep -qF "$from" "$file" || { log "ERROR: kustomize api has no \`$from\` in ${file#*/kustomize-api/} to redirect"; exit 1; }
  FROM="$from" TO="$to" perl -0pi -e 's/\Q$ENV{FROM}\E/$ENV{TO}/; s/^import \(/import (\n\t"sigs.k8s.io\/kustomize\/api\/internal\/yamljson"/m' "$file"
}

# Copies module $1 (as wasm/go.mod requires it) into folder $2 of a fresh work dir $3, writable, and
# sets module_version. Downloaded first: on a fresh machine the module cache does not have it yet.
copy_module() {
  local dir
  (cd wasm && "$go_bin" mod download "$1")
  dir="$(cd wasm && "$go_bin" list -m -f '{{.Dir}}' "$1")"
  module_version="$(cd wasm && "$go_bin" list -m -f '{{.Version}}' "$1")"
  [[ -d "$dir" ]] || { log "ERROR: $1 is not in the module cache"; exit 1; }
  rm -rf "$3" && mkdir -p "$3"
  cp -R "$dir" "$3/$2" && chmod -R u+w "$3/$2"
}

kustomize_workspace() {
  local gen version
  gen="$1"
  copy_module sigs.k8s.io/kustomize/api kustomize-api "$gen"
  version="$module_version"
  local mt="$gen/kustomize-api/internal/target/multitransformer.go"
  sed -i 's/m\.AddTransformerAnnotation(t\.Origin)/addTransformerAnnotation(m, t.Origin)/' "$mt"
  grep -q 'addTransformerAnnotation(m, t.Origin)' "$mt" \
    || { log "ERROR: kustomize api $version has no AddTransformerAnnotation(t.Origin) call in internal/target/multitransformer.go to redirect"; exit 1; }
  local factory="$gen/kustomize-api/resource/factory.go"
  sed -i 's/^\tnodes, err := kio\.FromBytes(b)$/\tnodes, err := parsedNodes(b)/' "$factory"
  grep -q 'nodes, err := parsedNodes(b)' "$factory" \
    || { log "ERROR: kustomize api $version has no kio.FromBytes(b) call in resource/factory.go to redirect"; exit 1; }
  local tc="$gen/kustomize-api/internal/plugins/builtinconfig/transformerconfig.go"
  sed -i 's/^func (t \*TransformerConfig) Merge(input \*TransformerConfig) ($/func (t *TransformerConfig) mergeFieldSpecs(input *TransformerConfig) (/' "$tc"
  grep -q '^func (t \*TransformerConfig) mergeFieldSpecs(' "$tc" \
    || { log "ERROR: kustomize api $version has no TransformerConfig.Merge in internal/plugins/builtinconfig/transformerconfig.go to rename"; exit 1; }
  # YAML converted to JSON is kept by text (internal/yamljson): kustomization files, JSON 6902 patches...
  redirect_yaml_to_json "$gen/kustomize-api/types/kustomization.go" 'j, err := yaml.YAMLToJSON(y)' 'j, err := yamljson.Convert(y, yaml.YAMLToJSON)'
  redirect_yaml_to_json "$gen/kustomize-api/internal/builtins/PatchTransformer.go" 'jsonOps, err := yaml.YAMLToJSON(in)' 'jsonOps, err := yamljson.Convert(in, yaml.YAMLToJSON)'
  redirect_yaml_to_json "$gen/kustomize-api/filters/patchjson6902/patchjson6902.go" 'p, err := k8syaml.YAMLToJSON([]byte(patch))' 'p, err := yamljson.Convert([]byte(patch), k8syaml.YAMLToJSON)'
  # ...and the YAML a built-in plugin is configured with, by its JSON.
  redirect_yaml_to_json "$gen/kustomize-api/internal/target/kusttarget.go" 'y, err = yaml.Marshal(c)' 'y, err = yamljson.MarshalYAML(c, yaml.JSONToYAML)'
  mkdir -p "$gen/kustomize-api/internal/yamljson"
  cp wasm/_overlay/kustomize-api/internal/yamljson/*.go "$gen/kustomize-api/internal/yamljson/"
  cp wasm/_overlay/kustomize-api/internal/target/*.go "$gen/kustomize-api/internal/target/"
  cp wasm/_overlay/kustomize-api/internal/plugins/builtinconfig/*.go "$gen/kustomize-api/internal/plugins/builtinconfig/"
  cp wasm/_overlay/kustomize-api/resource/*.go "$gen/kustomize-api/resource/"
  cp wasm/_overlay/kustomize-api/types/*.go "$gen/kustomize-api/types/"
  cp wasm/_overlay/kustomize-api/krusty/*.go "$gen/kustomize-api/krusty/"
  printf 'go %s\n\nuse %s\n\nreplace sigs.k8s.io/kustomize/api %s => %s\n' \
    "$(sed -n 's/^go //p' wasm/go.mod)" "$repo_root/wasm" "$version" "$gen/kustomize-api" >"$gen/go.work"
  printf '%s' "$gen/go.work"
}
# The helm module is compiled against a copy of helm's module whose engine keeps each render's
# parsed template set, and answers `tpl` of a text without actions at once
# (wasm/_overlay/helm/pkg/engine/parsed.go): render's parse loop and tplFun are redirected to it.
# toYaml and fromYaml are answered from memory (memo.go; helm's own functions renamed).
# releaseutil's manifest heads are decoded through JSON kept for the render's objects (heads.go).
# releaseutil's SplitManifests splits with wasm/manifests instead of its regular expression (the
# same answer; a fifth of a CRD chart's render went to that expression in WebAssembly).
# A helm version without those lines stops the build.
helm_workspace() {
  local version gen engine
  gen="$1"
  copy_module helm.sh/helm/v3 helm "$gen"
  version="$module_version"
  engine="$gen/helm/pkg/engine/engine.go"
  perl -0pi -e 's/\tfor _, filename := range keys \{\n\t\tr := tpls\[filename\]\n\t\tif _, err := t\.New\(filename\)\.Parse\(r\.tpl\); err != nil \{\n\t\t\treturn map\[string\]string\{\}, cleanupParseError\(filename, err\)\n\t\t\}\n\t\}\n/\tif t, err = e.parseAll(t, keys, tpls); err != nil {\n\t\treturn map[string]string{}, err\n\t}\n/' "$engine"
  perl -0pi -e 's/(\treturn func\(tpl string, vals interface\{\}\) \(string, error\) \{\n)(\t\tt, err := parent\.Clone\(\)\n)/$1\t\tif plain, ok := plainTpl(tpl); ok {\n\t\t\treturn plain, nil\n\t\t}\n$2/' "$engine"
  grep -q 'plainTpl(tpl)' "$engine" \
    || { log "ERROR: helm $version has no tpl function in pkg/engine/engine.go to give its plain-text answer"; exit 1; }
  grep -q 'e.parseAll(t, keys, tpls)' "$engine" \
    || { log "ERROR: helm $version has no parse loop in pkg/engine/engine.go render to redirect"; exit 1; }
  local funcs="$gen/helm/pkg/engine/funcs.go"
  perl -0pi -e 's/^func toYAML\(v interface\{\}\) string \{\n/func helmToYAML(v interface{}) string {\n/m; s/^func fromYAML\(str string\) map\[string\]interface\{\} \{\n/func helmFromYAML(str string) map[string]interface{} {\n/m' "$funcs"
  grep -q '^func helmToYAML(v interface{}) string {' "$funcs" && grep -q '^func helmFromYAML(str string) map\[string\]interface{} {' "$funcs" \
    || { log "ERROR: helm $version has no toYAML and fromYAML in pkg/engine/funcs.go to answer from memory"; exit 1; }
  cp wasm/_overlay/helm/pkg/engine/*.go "$gen/helm/pkg/engine/"
  local sorter="$gen/helm/pkg/releaseutil/manifest_sorter.go"
  perl -0pi -e 's/\t\tif err := yaml\.Unmarshal\(\[\]byte\(m\), &entry\); err != nil \{\n/\t\tif err := unmarshalHead(m, &entry); err != nil {\n/; s/^\t"sigs\.k8s\.io\/yaml"\n/\t_ "sigs.k8s.io\/yaml"\n/m' "$sorter"
  grep -q 'if err := unmarshalHead(m, &entry); err != nil {' "$sorter" \
    || { log "ERROR: helm $version has no head decoding in pkg/releaseutil/manifest_sorter.go to redirect"; exit 1; }
  cp wasm/_overlay/helm/pkg/releaseutil/*.go "$gen/helm/pkg/releaseutil/"
  local manifest="$gen/helm/pkg/releaseutil/manifest.go"
  perl -0pi -e 's/\tdocs := sep\.Split\(bigFileTmp, -1\)\n/\tdocs := manifests.Split(bigFileTmp)\n/; s/^import \(/import (\n\t"gitops-preview\/wasm\/manifests"/m' "$manifest"
  grep -q 'docs := manifests.Split(bigFileTmp)' "$manifest" \
    || { log "ERROR: helm $version has no separator split in pkg/releaseutil/manifest.go SplitManifests to redirect"; exit 1; }
  printf 'go %s\n\nuse %s\n\nreplace helm.sh/helm/v3 %s => %s\n' \
    "$(sed -n 's/^go //p' wasm/go.mod)" "$repo_root/wasm" "$version" "$gen/helm" >"$gen/go.work"
  printf '%s' "$gen/go.work"
}
# Each module is keyed by the Go sources it is built from (its cmd/ folder and the shared ones), so a
# change to one module does not recompile the other.
module_key() {
  { "$go_bin" version; cat scripts/build-wasm.sh scripts/snapshot-wasm.ts wasm/go.mod wasm/go.sum \
      src/engine/wasm/snapshot.ts src/engine/wasm/binary.ts src/engine/wasm/wasi.ts src/engine/wasm/protocol.ts
    find wasm/internal wasm/manifests "wasm/cmd/$1" wasm/_overlay -name '*.go' -print0 | sort -z | xargs -0 sha256sum; } | sha256sum | cut -c1-16
}
root_cache="${GITOPS_PREVIEW_CACHE:-$HOME/.cache/gitops-preview}/wasm"
out="$repo_root/dist/wasm"
keys=()

for m in "${modules[@]}"; do
  key="$(module_key "$m")"
  keys+=("$m:$key")
  cache="$root_cache/$key"
  [[ -s "$cache/$m.wasm" && -s "$cache/$m.snapshot" ]] && continue
  mkdir -p "$cache"
  start=$SECONDS
  tmp="$cache/.$m.wasm.$$"
  work=off
  if [[ "$m" == kustomize ]]; then
    work="$(kustomize_workspace "$cache/.work.$$")"
    # kyaml's built-in OpenAPI document without what no build reads (generated, checked, embedded).
    (cd wasm && GOWORK=off "$go_bin" run ./cmd/kustomize/slimschema cmd/kustomize/swagger.slim.pb)
  elif [[ "$m" == helm ]]; then
    work="$(helm_workspace "$cache/.work.$$")"
  fi
  (cd wasm && GOWORK="$work" GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 "$go_bin" build ${GO_BUILD_P:+-p "$GO_BUILD_P"} -trimpath -buildvcs=false \
    -buildmode=c-shared -ldflags='-s -w' -o "$tmp" "./cmd/$m")
  rm -rf "$cache/.work.$$"
  # The instance's set-up (Go's initialisation, and for kustomize the parse of kyaml's schema: the
  # warm operation) is run here once, and its state written beside the module: each instance is laid
  # from it instead of setting itself up (src/engine/wasm/snapshot.ts).
  warm=()
  [[ "$m" == kustomize ]] && warm=(warm)
  node --import tsx scripts/snapshot-wasm.ts "$tmp" "$tmp.ready" "$cache/$m.snapshot" "${warm[@]}"
  rm -f "$tmp"
  mv -f "$tmp.ready" "$cache/$m.wasm"
  log "compiled $m.wasm ($(du -h "$cache/$m.wasm" | cut -f1)) in $((SECONDS - start))s"
done

mkdir -p "$out"
for m in "${modules[@]}"; do
  cache="$root_cache/$(module_key "$m")"
  cmp -s "$cache/$m.wasm" "$out/$m.wasm" 2>/dev/null || cp -f "$cache/$m.wasm" "$out/$m.wasm"
  cmp -s "$cache/$m.snapshot" "$out/$m.snapshot" 2>/dev/null || cp -f "$cache/$m.snapshot" "$out/$m.snapshot"
done
printf '%s\n' "${keys[*]}" >"$out/KEY"
