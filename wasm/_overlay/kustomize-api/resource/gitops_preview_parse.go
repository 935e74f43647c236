// Added to sigs.k8s.io/kustomize/api/resource when the kustomize module is compiled
// (scripts/build-wasm.sh); factory.go's RNodesFromBytes calls parsedNodes instead of kio.FromBytes.

package resource

import (
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// ParseCacheLimit bounds, in YAML nodes, the parsed documents kept between builds (0: none kept,
// kustomize's own behaviour). A long-lived instance builds the same source files over and over (a
// component every app includes, the files an edit did not touch), and parsing them was the largest
// part of a small build. Counted in nodes, not bytes of text: a node costs about 200 bytes of the
// instance's heap whatever the text it came from.
var ParseCacheLimit int

var parsed = map[string][]*yaml.RNode{}
var parsedNodeCount int

// parsedNodes is kio.FromBytes, answered from the cache when the same text was parsed before: the
// caller gets its own deep copy, since builds change the nodes they are given.
func parsedNodes(b []byte) ([]*yaml.RNode, error) {
	if ParseCacheLimit <= 0 {
		return kio.FromBytes(b)
	}
	if nodes, ok := parsed[string(b)]; ok {
		return copyNodes(nodes), nil
	}
	nodes, err := kio.FromBytes(b)
	if err != nil {
		return nil, err
	}
	count := 0
	for _, n := range nodes {
		count += nodeCount(n.YNode())
	}
	if count <= ParseCacheLimit/4 {
		// Full: start again (the documents of the builds running now come back first).
		if parsedNodeCount+count > ParseCacheLimit {
			parsed, parsedNodeCount = map[string][]*yaml.RNode{}, 0
		}
		parsed[string(b)] = copyNodes(nodes)
		parsedNodeCount += count
	}
	return nodes, nil
}

func nodeCount(n *yaml.Node) int {
	if n == nil {
		return 0
	}
	c := 1
	for _, k := range n.Content {
		c += nodeCount(k)
	}
	return c
}

func copyNodes(nodes []*yaml.RNode) []*yaml.RNode {
	out := make([]*yaml.RNode, len(nodes))
	for i, n := range nodes {
		out[i] = n.Copy()
	}
	return out
}
