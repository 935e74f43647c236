package namefs

import (
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

func write(t *testing.T, fs filesys.FileSystem, p, text string) {
	t.Helper()
	if err := fs.MkdirAll(p[:strings.LastIndex(p, "/")]); err != nil {
		t.Fatalf("mkdir for %s: %v", p, err)
	}
	if err := fs.WriteFile(p, []byte(text)); err != nil {
		t.Fatalf("write %s: %v", p, err)
	}
}

// A name holding ".." (wrmilling/k3s-gitops has `operator..yaml`) is a file like any other, as on disk.
func TestNamesWithDoubleDotsBuild(t *testing.T) {
	fs := New(filesys.MakeFsInMemory())
	cm := func(name string) string { return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n" }
	write(t, fs, "/src/apps/op..yaml", cm("op"))
	write(t, fs, "/src/apps/a...b c.yaml", cm("spaced"))
	write(t, fs, "/src/apps/kustomization.yaml", "resources:\n  - op..yaml\n  - a...b c.yaml\n")
	names, err := fs.ReadDir("/src/apps")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	if got := strings.Join(names, ","); got != "a...b c.yaml,kustomization.yaml,op..yaml" {
		t.Fatalf("ReadDir shows %q", got)
	}
	k := krusty.MakeKustomizer(&krusty.Options{LoadRestrictions: kustypes.LoadRestrictionsNone, PluginConfig: kustypes.DisabledPluginConfig()})
	res, err := k.Run(fs, "/src/apps")
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	if res.Size() != 2 {
		t.Fatalf("built %d objects, want 2", res.Size())
	}
}

func TestEncodingIsOneToOne(t *testing.T) {
	for _, n := range []string{"op..yaml", "...", "a.b", "x:2e", "a:..b", "..hidden", "trailing.."} {
		e := encodeName(n)
		if strings.Contains(e, "..") {
			t.Errorf("%q encodes to %q, which kyaml refuses", n, e)
		}
		if d := decodeName(e); d != n {
			t.Errorf("%q encodes to %q, which decodes to %q", n, e, d)
		}
	}
	if encodeName("..") != ".." || encodeName("plain-name.yaml") != "plain-name.yaml" {
		t.Error("the parent folder and ordinary names must stay as they are")
	}
}
