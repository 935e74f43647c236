package main

// The rendered documents as data, for the host's model: each with the file helm names as its
// source (`# Source:`), and its JSON as Kubernetes decodes the YAML (sigs.k8s.io/yaml, as helm's
// kube client does when helm-controller applies it), its keys in the document's order. The release manifest's documents come with
// the JSON helm's sort already made of them (releaseutil.KeptJSON); the crds/ folder's files,
// which helm installs apart, are split into documents as the kube client splits them.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"helm.sh/helm/v3/pkg/releaseutil"
)

type outputDoc struct {
	Source string          `json:"source"`
	CRD    bool            `json:"crd,omitempty"`
	JSON   json.RawMessage `json:"json,omitempty"`
	Error  string          `json:"error,omitempty"`
	Text   string          `json:"text,omitempty"`
}

func renderedObjects(r rendering, args templateArgs) (string, error) {
	docs := []outputDoc{}
	for _, crd := range r.crds {
		reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(crd.File.Data)))
		for {
			doc, err := reader.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				docs = append(docs, outputDoc{Source: crd.Filename, CRD: true, Error: err.Error()})
				break
			}
			docs = append(docs, jsonDoc(outputDoc{Source: crd.Filename, CRD: true}, string(doc), false, false))
		}
	}
	for _, m := range r.manifests {
		docs = append(docs, jsonDoc(outputDoc{Source: m.Name}, m.Content, true, args.Texts))
	}
	for _, h := range r.hooks {
		if args.SkipTests && isTestHook(h) {
			continue
		}
		docs = append(docs, jsonDoc(outputDoc{Source: h.Path}, h.Manifest, true, args.Texts))
	}
	out, err := json.Marshal(struct {
		Docs []outputDoc `json:"docs"`
	}{docs})
	return string(out), err
}

// jsonDoc is d with the JSON of a document, and, when asked, the text as helm template prints
// it. A manifest's text is trimmed (SplitManifests): it is read as the release manifest holds it,
// with a line break after it; a crds/ document is read as it is.
func jsonDoc(d outputDoc, text string, manifest bool, texts bool) outputDoc {
	read := text
	if manifest {
		read += "\n"
	}
	if j, ok := releaseutil.KeptJSON[text]; ok && manifest {
		d.JSON = j
	} else if j, err := releaseutil.DocumentJSON(read); err == nil {
		d.JSON = j
	} else {
		d.Error = err.Error()
	}
	if texts {
		d.Text = fmt.Sprintf("---\n# Source: %s\n%s\n", d.Source, text)
	}
	return d
}
