package engine

// Added to helm's engine package by scripts/build-wasm.sh (the helm module's only change there):
// a render's template set is parsed once per content and kept, and each later render with the
// same templates starts from a copy of it. Parsing was about four fifths of an app-template
// render (its common library's hundreds of `define`s); executing them is what depends on the
// values. The copy gets the render's own functions (include and tpl bound to it), as a fresh
// parse would; parse errors are reported as helm reports them, since a set that fails to parse
// is never kept.

import (
	"crypto/sha256"
	"strings"
	"text/template"
)

// What an instance keeps is bounded by count and by the templates' text (their parse trees take
// a few times that): a repository uses a few dozen charts at most, and a CRD chart's templates
// can be megabytes.
const (
	maxParsedSets      = 32
	maxParsedTextBytes = 32 << 20
)

var (
	parsedSets      = map[[32]byte]*template.Template{}
	parsedTextBytes = 0
)

// parseAll parses every template of keys into t (set up with the render's options and functions)
// or, when the same templates were parsed before, returns a copy of that set set up the same way.
func (e Engine) parseAll(t *template.Template, keys []string, tpls map[string]renderable) (*template.Template, error) {
	h := sha256.New()
	size := 0
	if e.Strict {
		h.Write([]byte{1})
	} else {
		h.Write([]byte{0})
	}
	for _, k := range keys {
		h.Write([]byte(k))
		h.Write([]byte{0})
		h.Write([]byte(tpls[k].tpl))
		h.Write([]byte{0})
		size += len(tpls[k].tpl)
	}
	var key [32]byte
	copy(key[:], h.Sum(nil))
	if base, ok := parsedSets[key]; ok {
		c, err := base.Clone()
		if err != nil {
			return nil, err
		}
		e.initFunMap(c)
		return c, nil
	}
	for _, filename := range keys {
		if _, err := t.New(filename).Parse(tpls[filename].tpl); err != nil {
			return nil, cleanupParseError(filename, err)
		}
	}
	if base, err := t.Clone(); err == nil && size <= maxParsedTextBytes {
		if len(parsedSets) >= maxParsedSets || parsedTextBytes+size > maxParsedTextBytes {
			clear(parsedSets)
			parsedTextBytes = 0
		}
		parsedSets[key] = base
		parsedTextBytes += size
	}
	return t, nil
}

// plainTpl answers `tpl` of a text with no action at once: parsed and executed, such a text is
// itself, and helm then drops "<no value>" from it. bjw-s' common library passes most of a
// release's strings (names, images, paths) through tpl, and each call first copies the whole
// template set.
func plainTpl(text string) (string, bool) {
	if strings.Contains(text, "{{") {
		return "", false
	}
	return strings.ReplaceAll(text, "<no value>", ""), true
}
