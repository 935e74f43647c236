package main

import (
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"

	"gitops-preview/wasm/internal/abi"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/kio"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
	sigsyaml "sigs.k8s.io/yaml"
)

// A build redone in part: after one resource file of a build changed, the same build with every
// `resources` list on the way to that file cut down to the entries that lead to it. kustomize
// offers no incremental build, and a parent such as bjw-s' cluster-apps (a hundred Kustomizations)
// costs half a second to rebuild for a one-line edit of one of them.
//
// What kustomize does to a resource depends on other resources in three ways, each ruled out here:
//   - name references (kustomize's nameReference, run once over the whole build): the file's
//     objects must be of kinds that neither refer to others nor are referred to by name;
//   - replacements and vars copy values between resources: none on the way to the file (vars
//     nowhere, they are resolved over the whole build);
//   - the file read in another role (a patch, a generator's input, a replacement): refused.
//
// Plugins, Helm charts, custom configurations, CRD schemas and OpenAPI schemas are refused
// anywhere: they may change any of this. The host then checks that the file still yields objects
// of the same identities, and otherwise (or when a plan is refused or the cut build fails) runs
// the whole build.

// partialFields are the kustomization fields a build in part understands (lower case, as kustomize
// reads them: its decoding ignores case); anything else refuses it.
var partialFields = map[string]bool{
	"apiversion": true, "kind": true, "metadata": true,
	"resources": true, "bases": true, "components": true,
	"namespace": true, "nameprefix": true, "namesuffix": true,
	"labels": true, "commonlabels": true, "commonannotations": true,
	"patches": true, "patchesstrategicmerge": true, "patchesjson6902": true,
	"images": true, "replicas": true, "buildmetadata": true, "sortoptions": true,
	"configmapgenerator": true, "secretgenerator": true, "generatoroptions": true,
	"replacements": true,
}

var kustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// kustomizationFile is one kustomization the build reaches, as the plan needs it.
type kustomizationFile struct {
	path    string
	content []byte
	fields  map[string]any
	// entries are its resources (and bases), each resolved, with whether it is a folder.
	entries []resourceEntry
	// components are its components' folders.
	components []string
	// whole: reached through a component, which is never cut.
	whole bool
}

type resourceEntry struct {
	text, path string
	dir        bool
}

type partialPlan struct {
	fs     filesys.FileSystem
	target string
	byDir  map[string]*kustomizationFile
	// reaches memoises, per kustomization folder, whether the target is among what it builds.
	reaches map[string]bool
}

// plannedCuts keeps the cut kustomizations of builds in part (or why there are none) by what they
// depend on besides the target's own content: the build's folder, the target, the kept set's
// kustomizations and which files exist (planEpoch), and the files laid over it for this build
// (Flux's generated kustomization). Typing in one file asks for the same plan at every keystroke.
var plannedCuts = map[string]plannedCut{}

type plannedCut struct {
	cut map[string][]byte
	err error
}

const plannedCutsLimit = 256

// planEpoch changes whenever the kept set's kustomizations change or files appear or go (kustomize.go).
var planEpoch uint64

// planPartial returns the kustomization files to lay over the source (their resources cut) for a
// build of dir that gives target's objects as the whole build does, or why it cannot. overlaid
// names the files laid over the kept set for this build (a digest of their paths and contents).
func planPartial(fs filesys.FileSystem, dir, target, overlaid string) (map[string][]byte, error) {
	if isKustomizationName(path.Base(target)) {
		return nil, fmt.Errorf("%s is a kustomization", target)
	}
	if !fs.Exists(target) || fs.IsDir(target) {
		return nil, fmt.Errorf("%s is not a file of the source", target)
	}
	if err := refersByName(fs, target); err != nil {
		return nil, err
	}
	key := fmt.Sprintf("%d\x00%s\x00%s\x00%s", planEpoch, dir, target, overlaid)
	if c, ok := plannedCuts[key]; ok {
		return c.cut, c.err
	}
	cut, err := planCuts(fs, dir, target)
	if len(plannedCuts) >= plannedCutsLimit {
		clear(plannedCuts)
	}
	plannedCuts[key] = plannedCut{cut, err}
	return cut, err
}

// planCuts is planPartial past the target's own checks: the kustomizations the build reaches.
func planCuts(fs filesys.FileSystem, dir, target string) (map[string][]byte, error) {
	p := &partialPlan{fs: fs, target: target, byDir: map[string]*kustomizationFile{}, reaches: map[string]bool{}}
	if err := p.read(dir, false); err != nil {
		return nil, err
	}
	if !p.reach(dir) {
		return nil, fmt.Errorf("%s is not a resource of this build", target)
	}
	for _, k := range p.byDir {
		if err := p.checkRoles(k); err != nil {
			return nil, err
		}
	}
	cut := map[string][]byte{}
	var include func(string) error
	included := map[string]bool{}
	include = func(d string) error {
		if included[d] {
			return nil
		}
		included[d] = true
		k := p.byDir[d]
		if _, has := k.fields["replacements"]; has {
			return fmt.Errorf("%s has replacements (their sources may be among the resources left out)", k.path)
		}
		for _, c := range k.components {
			if err := include(c); err != nil {
				return err
			}
		}
		keep := map[string]bool{}
		cutAny := false
		for _, e := range k.entries {
			kept := k.whole || (e.dir && p.reach(e.path)) || (!e.dir && e.path == target)
			keep[e.text] = keep[e.text] || kept
			cutAny = cutAny || !kept
			if kept && e.dir {
				if err := include(e.path); err != nil {
					return err
				}
			}
		}
		if cutAny {
			text, err := cutResources(k.content, keep)
			if err != nil {
				return fmt.Errorf("%s: %w", k.path, err)
			}
			cut[k.path] = text
		}
		return nil
	}
	if err := include(dir); err != nil {
		return nil, err
	}
	return cut, nil
}

func isKustomizationName(name string) bool {
	for _, n := range kustomizationNames {
		if n == name {
			return true
		}
	}
	return false
}

// refersByName refuses a file holding objects of a kind kustomize's name references involve (as
// referring or referred to): which names those fields end up with depends on the whole build.
func refersByName(fs filesys.FileSystem, target string) error {
	b, err := fs.ReadFile(target)
	if err != nil {
		return err
	}
	nodes, err := kio.FromBytes(b)
	if err != nil {
		return fmt.Errorf("%s: %w", target, err)
	}
	kinds, all := krusty.NameReferenceKinds()
	for _, n := range nodes {
		if kind := n.GetKind(); all || kinds[kind] {
			return fmt.Errorf("%s holds a %s, which kustomize's name references may rewrite or point to", target, kind)
		}
	}
	return nil
}

// read reads the kustomization at dir and every one it reaches.
func (p *partialPlan) read(dir string, whole bool) error {
	if k, seen := p.byDir[dir]; seen {
		if k.whole != whole {
			return fmt.Errorf("%s is reached both through a component and otherwise", dir)
		}
		return nil
	}
	k := &kustomizationFile{whole: whole}
	p.byDir[dir] = k
	for _, name := range kustomizationNames {
		if f := path.Join(dir, name); p.fs.Exists(f) {
			k.path = f
			break
		}
	}
	if k.path == "" {
		return fmt.Errorf("%s has no kustomization", dir)
	}
	var err error
	if k.content, err = p.fs.ReadFile(k.path); err != nil {
		return err
	}
	raw, err := decodedKustomization(k.content)
	if err != nil {
		return fmt.Errorf("%s: %w", k.path, err)
	}
	k.fields = map[string]any{}
	for key, v := range raw {
		lower := strings.ToLower(key)
		if !partialFields[lower] {
			return fmt.Errorf("%s has %s", k.path, key)
		}
		if _, dup := k.fields[lower]; dup {
			return fmt.Errorf("%s has %s twice", k.path, lower)
		}
		k.fields[lower] = v
	}
	for _, c := range stringList(k.fields["components"]) {
		cp := resolve(dir, c)
		if !p.fs.IsDir(cp) {
			return fmt.Errorf("%s: component %s is not a folder", k.path, c)
		}
		k.components = append(k.components, cp)
		if err := p.read(cp, true); err != nil {
			return err
		}
	}
	for _, key := range []string{"resources", "bases"} {
		for _, text := range stringList(k.fields[key]) {
			e := resourceEntry{text: text, path: resolve(dir, text)}
			switch {
			case p.fs.IsDir(e.path):
				e.dir = true
				if err := p.read(e.path, whole); err != nil {
					return err
				}
			case !p.fs.Exists(e.path):
				return fmt.Errorf("%s: resource %s is not in the source", k.path, text)
			}
			k.entries = append(k.entries, e)
		}
	}
	return nil
}

// decoded keeps kustomization files decoded by their text: a source's kustomizations rarely
// change between builds, and decoding them was a third of a build in part. The maps are only read.
var decoded = map[string]map[string]any{}

const decodedLimit = 4096

func decodedKustomization(content []byte) (map[string]any, error) {
	if m, ok := decoded[string(content)]; ok {
		return m, nil
	}
	var m map[string]any
	if err := sigsyaml.Unmarshal(content, &m); err != nil {
		return nil, err
	}
	if len(decoded) >= decodedLimit {
		clear(decoded)
	}
	decoded[string(content)] = m
	return m, nil
}

// reach tells whether the target is among what the kustomization at dir builds.
func (p *partialPlan) reach(dir string) bool {
	if r, seen := p.reaches[dir]; seen {
		return r
	}
	p.reaches[dir] = false
	k := p.byDir[dir]
	r := false
	for _, c := range k.components {
		r = p.reach(c) || r
	}
	for _, e := range k.entries {
		r = (e.dir && p.reach(e.path)) || (!e.dir && e.path == p.target) || r
	}
	p.reaches[dir] = r
	return r
}

// checkRoles refuses patches that may rename or change kinds (their options allow it), and the
// target read in another role than a resource (a patch, a generator's input, replacements).
func (p *partialPlan) checkRoles(k *kustomizationFile) error {
	dir := path.Dir(k.path)
	var paths []string
	for _, key := range []string{"patches", "patchesjson6902", "replacements"} {
		list, _ := k.fields[key].([]any)
		for _, item := range list {
			m, _ := item.(map[string]any)
			if m == nil {
				return fmt.Errorf("%s: an entry of %s is not a mapping", k.path, key)
			}
			if opts, _ := m["options"].(map[string]any); opts != nil {
				for _, o := range []string{"allowNameChange", "allowKindChange"} {
					if v, _ := opts[o].(bool); v {
						return fmt.Errorf("%s: a patch sets %s", k.path, o)
					}
				}
			}
			if s, _ := m["path"].(string); s != "" {
				paths = append(paths, s)
			}
		}
	}
	for _, s := range stringList(k.fields["patchesstrategicmerge"]) {
		if !strings.Contains(s, "\n") {
			paths = append(paths, s)
		}
	}
	for _, key := range []string{"configmapgenerator", "secretgenerator"} {
		list, _ := k.fields[key].([]any)
		for _, item := range list {
			m, _ := item.(map[string]any)
			for _, s := range append(stringList(m["files"]), stringList(m["envs"])...) {
				if i := strings.Index(s, "="); i >= 0 {
					s = s[i+1:]
				}
				paths = append(paths, s)
			}
			if s, _ := m["env"].(string); s != "" {
				paths = append(paths, s)
			}
		}
	}
	for _, s := range paths {
		if resolve(dir, s) == p.target {
			return fmt.Errorf("%s is also read by %s (a patch, a generator's input or replacements)", p.target, k.path)
		}
	}
	return nil
}

func resolve(dir, entry string) string {
	if path.IsAbs(entry) {
		return path.Clean(entry)
	}
	return path.Join(dir, entry)
}

func stringList(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, item := range list {
		if s, ok := item.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// cutResources is the kustomization text with only the kept entries in its resources and bases.
func cutResources(content []byte, keep map[string]bool) ([]byte, error) {
	node, err := kyaml.Parse(string(content))
	if err != nil {
		return nil, err
	}
	fields := node.YNode().Content
	for i := 0; i+1 < len(fields); i += 2 {
		key, seq := fields[i].Value, fields[i+1]
		if (!strings.EqualFold(key, "resources") && !strings.EqualFold(key, "bases")) || seq.Kind != kyaml.SequenceNode {
			continue
		}
		kept := seq.Content[:0]
		for _, item := range seq.Content {
			if keep[item.Value] {
				kept = append(kept, item)
			}
		}
		seq.Content = kept
	}
	s, err := node.String()
	return []byte(s), err
}

// partialBuild answers kustomizeArgs.Only: the build with the plan's files laid over the source.
func partialBuild(fs filesys.FileSystem, openAPI bool, args kustomizeArgs, overlaid string) (string, error) {
	dir := path.Join(sourceRoot, path.Clean("/"+args.Dir))
	target := path.Join(sourceRoot, path.Clean("/"+args.Only))
	plan, err := planPartial(fs, dir, target, overlaid)
	if err != nil {
		b, err := json.Marshal(recordedBuild{Refused: relativeToSource(err).Error()})
		return string(b), err
	}
	var files abi.Files
	paths := make([]string, 0, len(plan))
	for p := range plan {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		files.List = append(files.List, abi.File{Path: strings.TrimPrefix(p, sourceRoot+"/"), Size: len(plan[p])})
		files.Contents = append(files.Contents, plan[p])
	}
	restore, err := overlay(fs, files)
	defer restore()
	if err != nil {
		return "", err
	}
	objects, err := buildObjects(fs, openAPI, args.Dir)
	result := recordedBuild{OK: err == nil, Objects: objects}
	if err != nil {
		result.Error = err.Error()
	}
	b, err := json.Marshal(result)
	return string(b), err
}
