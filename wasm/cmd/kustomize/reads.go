package main

import (
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// How a build used a path, weakest first: whether it exists (and is a file or a folder), which
// names a folder holds, what a file holds. The host turns each into a digest of the current
// content, so a cached build is reused only while everything it looked at is unchanged.
const (
	readStat = "stat"
	readList = "list"
	readFile = "file"
)

var readRank = map[string]int{readStat: 1, readList: 2, readFile: 3}

// recordingFS is a kustomize file system that notes every path of the source a build looks at.
// Paths outside the source root exist nowhere in the set, so they are not noted.
type recordingFS struct {
	filesys.FileSystem
	reads map[string]string
}

func newRecordingFS(fs filesys.FileSystem) *recordingFS {
	return &recordingFS{FileSystem: fs, reads: map[string]string{}}
}

func (r *recordingFS) note(p, how string) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(sourceRoot, p)
	}
	p = filepath.Clean(p)
	var rel string
	switch {
	case p == sourceRoot:
		rel = "."
	case strings.HasPrefix(p, sourceRoot+"/"):
		rel = strings.TrimPrefix(p, sourceRoot+"/")
	default:
		return
	}
	if readRank[how] > readRank[r.reads[rel]] {
		r.reads[rel] = how
	}
}

func (r *recordingFS) Open(path string) (filesys.File, error) {
	r.note(path, readFile)
	return r.FileSystem.Open(path)
}

func (r *recordingFS) IsDir(path string) bool {
	r.note(path, readStat)
	return r.FileSystem.IsDir(path)
}

func (r *recordingFS) ReadDir(path string) ([]string, error) {
	r.note(path, readList)
	return r.FileSystem.ReadDir(path)
}

func (r *recordingFS) CleanedAbs(path string) (filesys.ConfirmedDir, string, error) {
	r.note(path, readStat)
	return r.FileSystem.CleanedAbs(path)
}

func (r *recordingFS) Exists(path string) bool {
	r.note(path, readStat)
	return r.FileSystem.Exists(path)
}

func (r *recordingFS) Glob(pattern string) ([]string, error) {
	// A new match changes the answer: the pattern's folder is listed.
	r.note(filepath.Dir(pattern), readList)
	matches, err := r.FileSystem.Glob(pattern)
	for _, m := range matches {
		r.note(m, readStat)
	}
	return matches, err
}

func (r *recordingFS) ReadFile(path string) ([]byte, error) {
	r.note(path, readFile)
	return r.FileSystem.ReadFile(path)
}

func (r *recordingFS) Walk(path string, walkFn filepath.WalkFunc) error {
	return r.FileSystem.Walk(path, func(p string, info os.FileInfo, err error) error {
		if info != nil && info.IsDir() {
			r.note(p, readList)
		} else {
			r.note(p, readStat)
		}
		return walkFn(p, info, err)
	})
}
