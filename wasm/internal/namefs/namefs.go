// Package namefs lets kyaml's in-memory file system hold any file name a Git source may hold.
package namefs

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// kyaml's in-memory file system creates only names of [a-zA-Z0-9-_.:], while a Git source (and so
// kustomize-controller's on-disk build) may hold any name, spaces included. nameFS stores every
// name under an encoding of that alphabet and shows kustomize the names as written: ':' is the
// escape (a literal ':' is "::", any other byte outside the alphabet ":hh" in lower-case hex), so
// the encoding is one-to-one and leaves ordinary names as they are. kyaml also refuses any name
// holding "..", such as `operator..yaml`, so a '.' right after another '.' is escaped too (":2e").
type nameFS struct{ fs filesys.FileSystem }

// New wraps fs so that it takes every name, stored encoded and shown as written.
func New(fs filesys.FileSystem) filesys.FileSystem { return nameFS{fs} }

func legalByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
}

func encodeName(n string) string {
	if n == "" || n == "." || n == ".." {
		return n
	}
	var b strings.Builder
	for i := 0; i < len(n); i++ {
		switch c := n[i]; {
		case c == ':':
			b.WriteString("::")
		case c == '.' && i > 0 && n[i-1] == '.':
			b.WriteString(":2e")
		case legalByte(c):
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, ":%02x", c)
		}
	}
	return b.String()
}

func decodeName(n string) string {
	if !strings.Contains(n, ":") {
		return n
	}
	var b strings.Builder
	for i := 0; i < len(n); i++ {
		if n[i] != ':' {
			b.WriteByte(n[i])
			continue
		}
		if i+1 < len(n) && n[i+1] == ':' {
			b.WriteByte(':')
			i++
			continue
		}
		if i+2 < len(n) {
			if c, err := strconv.ParseUint(n[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(c))
				i += 2
				continue
			}
		}
		b.WriteByte(':')
	}
	return b.String()
}

// mapParts applies f to every element of a slash path.
func mapParts(p string, f func(string) string) string {
	parts := strings.Split(p, "/")
	for i, part := range parts {
		parts[i] = f(part)
	}
	return strings.Join(parts, "/")
}

func enc(p string) string { return mapParts(p, encodeName) }
func dec(p string) string { return mapParts(p, decodeName) }

// named puts the path as written back into an error about its encoded form.
func named(err error, p string) error {
	if err == nil {
		return nil
	}
	if e := enc(p); e != p {
		return fmt.Errorf("%s", strings.ReplaceAll(err.Error(), e, p))
	}
	return err
}

func (n nameFS) Create(p string) (filesys.File, error) {
	f, err := n.fs.Create(enc(p))
	if err != nil {
		return nil, named(err, p)
	}
	return nameFile{f}, nil
}
func (n nameFS) Mkdir(p string) error     { return named(n.fs.Mkdir(enc(p)), p) }
func (n nameFS) MkdirAll(p string) error  { return named(n.fs.MkdirAll(enc(p)), p) }
func (n nameFS) RemoveAll(p string) error { return named(n.fs.RemoveAll(enc(p)), p) }
func (n nameFS) Open(p string) (filesys.File, error) {
	f, err := n.fs.Open(enc(p))
	if err != nil {
		return nil, named(err, p)
	}
	return nameFile{f}, nil
}
func (n nameFS) IsDir(p string) bool  { return n.fs.IsDir(enc(p)) }
func (n nameFS) Exists(p string) bool { return n.fs.Exists(enc(p)) }
func (n nameFS) ReadDir(p string) ([]string, error) {
	names, err := n.fs.ReadDir(enc(p))
	if err != nil {
		return nil, named(err, p)
	}
	for i, name := range names {
		names[i] = decodeName(name)
	}
	return names, nil
}
func (n nameFS) CleanedAbs(p string) (filesys.ConfirmedDir, string, error) {
	d, f, err := n.fs.CleanedAbs(enc(p))
	if err != nil {
		return "", "", named(err, p)
	}
	return filesys.ConfirmedDir(dec(string(d))), decodeName(f), nil
}
func (n nameFS) ReadFile(p string) ([]byte, error) {
	b, err := n.fs.ReadFile(enc(p))
	return b, named(err, p)
}
func (n nameFS) WriteFile(p string, data []byte) error {
	return named(n.fs.WriteFile(enc(p), data), p)
}
func (n nameFS) Walk(p string, walkFn filepath.WalkFunc) error {
	return named(n.fs.Walk(enc(p), func(q string, info os.FileInfo, err error) error {
		if info != nil {
			info = nameInfo{info}
		}
		return walkFn(dec(q), info, err)
	}), p)
}

// Glob matches the pattern against the names as written: its wildcards are not in the encoded
// alphabet, so the pattern cannot be encoded as a whole.
func (n nameFS) Glob(pattern string) ([]string, error) {
	if _, err := path.Match(pattern, ""); err != nil {
		return nil, err
	}
	var out []string
	root := "/"
	if !path.IsAbs(pattern) {
		root = "."
	}
	err := n.Walk(root, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		if ok, _ := path.Match(pattern, p); ok {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

type nameFile struct{ filesys.File }

func (f nameFile) Stat() (os.FileInfo, error) {
	info, err := f.File.Stat()
	if info != nil {
		info = nameInfo{info}
	}
	return info, err
}

type nameInfo struct{ os.FileInfo }

func (i nameInfo) Name() string { return decodeName(i.FileInfo.Name()) }
