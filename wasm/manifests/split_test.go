package manifests

import (
	"math/rand"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// helm's separator (helm.sh/helm/v3/pkg/releaseutil/manifest.go).
var sep = regexp.MustCompile("(?:^|\\s*\n)---\\s*")

func same(t *testing.T, s string) {
	t.Helper()
	want := sep.Split(s, -1)
	if got := Split(s); !reflect.DeepEqual(got, want) {
		t.Fatalf("Split(%q)\n got %q\nwant %q", s, got, want)
	}
}

func TestSplitAsHelm(t *testing.T) {
	for _, s := range []string{
		"", "---", "----", "--", "a", "\n---", "\n---\n", " \n---", "---\na: 1\n---\nb: 2\n",
		"a: 1\n---\nb: 2", "a: 1\n\n \t\n---  \n\n---\nb", "a\n---\n---\n---", "a\r\n---\r\nb",
		"a \f\n---x", "---a\n---b", "a\n--- # comment\nb", "a\n  ---\nb", "a\n-- -\nb", "\n\n\n",
		"key: |\n  text\n  ---\n  more\n---\nnext: 1", "\v\n---\v", "a\u00a0\n---\u00a0b",
	} {
		same(t, s)
	}
}

// Random texts over the characters the separator cares about, the way the fuzzer would.
func TestSplitRandom(t *testing.T) {
	alphabet := []string{"-", "-", "-", "---", "\n", "\n", " ", "\t", "\r", "\f", "\v", "a", "#", "\n---", "é"}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 200000; i++ {
		var b strings.Builder
		for n := r.Intn(14); n > 0; n-- {
			b.WriteString(alphabet[r.Intn(len(alphabet))])
		}
		same(t, b.String())
	}
}

func FuzzSplit(f *testing.F) {
	f.Add("a\n---\nb")
	f.Fuzz(func(t *testing.T, s string) { same(t, s) })
}
