package main

import (
	"encoding/json"

	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// resourceJSON is kustomize's JSON of a resource (RNode.MarshalJSON) without its detour through
// text: MarshalJSON writes the node as YAML and parses that text again before decoding it, which
// took a third of a small build's time. Decoding the node itself runs the same decoder over the
// same tree, so it gives the same value — except where writing and reading the text back is not
// faithful, which Flux's output (the same MarshalJSON) keeps: a folded scalar with more-indented
// lines comes back with an extra line break. So a tree with a folded scalar, or with anchors,
// aliases or merge keys (which MarshalJSON first expands with kyaml's own rules), takes
// MarshalJSON's path.
func resourceJSON(r *resource.Resource) ([]byte, error) {
	n := r.YNode()
	if n == nil || n.Kind != yaml.MappingNode || !plainTree(n) {
		return r.MarshalJSON()
	}
	m := map[string]interface{}{}
	if err := n.Decode(&m); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// plainTree tells whether a node tree has no folded scalars, anchors, aliases or merge keys.
func plainTree(n *yaml.Node) bool {
	if n.Anchor != "" || n.Kind == yaml.AliasNode || n.Style&yaml.FoldedStyle != 0 {
		return false
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			// A plain `<<` key may be a merge key (any such key takes MarshalJSON's path).
			if k := n.Content[i]; k.Kind == yaml.ScalarNode && (k.Tag == "!!merge" || (k.Value == "<<" && k.Style == 0)) {
				return false
			}
		}
	}
	for _, c := range n.Content {
		if !plainTree(c) {
			return false
		}
	}
	return true
}
