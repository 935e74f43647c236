package main

// helm's values validation (chartutil.ValidateAgainstSchema, v3.22), with each chart's compiled
// JSON schema kept by the schema's digest: helm compiles every schema anew on every call, which
// was 1.1 s of a 1.4 s app-template render (its and common's 574 kB schemas). Same loaders, same
// order, same messages; only the compile is reused, which a long-lived instance makes worth it.

import (
	"bytes"
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"net/http"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
)

// maxCompiledSchemas bounds the cache: a repository's charts hold a few dozen schemas at most.
const maxCompiledSchemas = 64

var compiledSchemas = map[[32]byte]*jsonschema.Schema{}

// validateAgainstSchema is chartutil.ValidateAgainstSchema over cached compiled schemas.
func validateAgainstSchema(chrt *chart.Chart, values map[string]interface{}) error {
	var sb strings.Builder
	if chrt.Schema != nil {
		err := validateAgainstSingleSchema(values, chrt.Schema)
		if err != nil {
			fmt.Fprintf(&sb, "%s:\n", chrt.Name())
			sb.WriteString(err.Error())
		}
	}
	for _, subchart := range chrt.Dependencies() {
		raw, exists := values[subchart.Name()]
		if !exists || raw == nil {
			continue
		}
		subchartValues, ok := raw.(map[string]any)
		if !ok {
			fmt.Fprintf(&sb, "%s:\ninvalid type for values: expected object (map), got %T\n", subchart.Name(), raw)
			continue
		}
		if err := validateAgainstSchema(subchart, subchartValues); err != nil {
			sb.WriteString(err.Error())
		}
	}
	if sb.Len() > 0 {
		return errors.New(sb.String())
	}
	return nil
}

// validateAgainstSingleSchema is chartutil.ValidateAgainstSingleSchema with the compile cached.
func validateAgainstSingleSchema(values chartutil.Values, schemaJSON []byte) (reterr error) {
	defer func() {
		if r := recover(); r != nil {
			reterr = fmt.Errorf("unable to validate schema: %s", r)
		}
	}()
	validator, err := compiledSchema(schemaJSON)
	if err != nil {
		return err
	}
	if err := validator.Validate(values.AsMap()); err != nil {
		return schemaValidationError{err}
	}
	return nil
}

// schemaValidationError is chartutil.JSONSchemaValidationError (whose field is not exported).
type schemaValidationError struct{ err error }

func (e schemaValidationError) Error() string {
	return strings.TrimPrefix(e.err.Error(), "jsonschema validation failed with 'file:///values.schema.json#'\n") + "\n"
}

// schemaDigests is each schema's digest by the array that holds its bytes. Charts are kept
// loaded between calls and their copies share those arrays, so a schema is hashed once, not on
// every render (hashing app-template's schema and its library's on each render was ~20 ms in
// WebAssembly). An entry holds its array, which is therefore never freed and its address never
// reused while the entry lives; a chart's files are never written after loading.
var schemaDigests = map[schemaBytes]schemaDigest{}

type schemaBytes struct {
	first *byte
	n     int
}

type schemaDigest struct {
	held   []byte
	digest [32]byte
}

func digestOf(schemaJSON []byte) [32]byte {
	if len(schemaJSON) == 0 {
		return sha256.Sum256(schemaJSON)
	}
	id := schemaBytes{unsafe.SliceData(schemaJSON), len(schemaJSON)}
	if d, ok := schemaDigests[id]; ok {
		return d.digest
	}
	if len(schemaDigests) >= 4*maxCompiledSchemas {
		clear(schemaDigests)
	}
	d := schemaDigest{held: schemaJSON, digest: sha256.Sum256(schemaJSON)}
	schemaDigests[id] = d
	return d.digest
}

func compiledSchema(schemaJSON []byte) (*jsonschema.Schema, error) {
	key := digestOf(schemaJSON)
	if s, ok := compiledSchemas[key]; ok {
		return s, nil
	}
	schema, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, err
	}
	// helm's loaders, as chartutil builds them (the module has no network: a remote $ref fails as
	// helm's does offline).
	loader := jsonschema.SchemeURLLoader{
		"file":  jsonschema.FileLoader{},
		"http":  newHTTPURLLoader(),
		"https": newHTTPURLLoader(),
		"urn":   urnLoader{},
	}
	compiler := jsonschema.NewCompiler()
	compiler.UseLoader(loader)
	if err := compiler.AddResource("file:///values.schema.json", schema); err != nil {
		return nil, err
	}
	validator, err := compiler.Compile("file:///values.schema.json")
	if err != nil {
		return nil, err
	}
	if len(compiledSchemas) >= maxCompiledSchemas {
		clear(compiledSchemas)
	}
	compiledSchemas[key] = validator
	return validator, nil
}

// newHTTPURLLoader is chartutil's (unexported there).
func newHTTPURLLoader() *chartutil.HTTPURLLoader {
	httpLoader := chartutil.HTTPURLLoader(http.Client{
		Timeout: 15 * time.Second,
		Transport: &http.Transport{
			Proxy:           http.ProxyFromEnvironment,
			TLSClientConfig: &tls.Config{},
		},
	})
	return &httpLoader
}

// urnLoader is chartutil's (unexported there): chartutil.URNResolver, else a permissive schema.
type urnLoader struct{}

var warnedURNs sync.Map

func (l urnLoader) Load(urlStr string) (any, error) {
	if doc, err := chartutil.URNResolver(urlStr); err == nil && doc != nil {
		return doc, nil
	}
	if _, loaded := warnedURNs.LoadOrStore(urlStr, struct{}{}); !loaded {
		log.Printf("WARNING: unresolved URN reference ignored; using permissive schema: %s", urlStr)
	}
	return jsonschema.UnmarshalJSON(strings.NewReader("true"))
}
