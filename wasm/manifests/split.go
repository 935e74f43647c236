// Package manifests splits a rendered template into its YAML documents the way helm's releaseutil
// does, without its regular expression. Helm splits with `(?:^|\s*\n)---\s*`, which has no literal
// prefix, so Go's matcher steps through every byte of a file: on charts whose templates hold CRDs
// (megabytes of output) that split was a fifth of a render in WebAssembly. The helm module's copy
// of releaseutil calls Split instead (scripts/build-wasm.sh); split_test.go holds it to the
// regular expression's answer.
package manifests

import "strings"

// Split is `regexp.MustCompile("(?:^|\\s*\\n)---\\s*").Split(s, -1)`.
//
// Every match holds "---" and, except one at the very start, the newline before it: the run of
// whitespace that ends with that newline is the match's start (the leftmost one, not before the
// previous match's end), and the whitespace after the dashes its end (\s* is greedy).
func Split(s string) []string {
	if s == "" {
		return []string{""}
	}
	out := []string{}
	beg, end, pos := 0, 0, 0
	cut := func(from, to int) {
		end = from
		if to != 0 {
			out = append(out, s[beg:end])
		}
		beg = to
		pos = to
	}
	if strings.HasPrefix(s, "---") {
		cut(0, spaceEnd(s, 3))
	}
	for {
		i := strings.Index(s[pos:], "\n---")
		if i < 0 {
			break
		}
		nl := pos + i
		from := nl
		for from > pos && isSpace(s[from-1]) {
			from--
		}
		cut(from, spaceEnd(s, nl+4))
	}
	if end != len(s) {
		out = append(out, s[beg:])
	}
	return out
}

// isSpace is RE2's \s: [\t\n\f\r ].
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

func spaceEnd(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}
