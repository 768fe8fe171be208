// Package openapi embeds the OpenAPI 3.1 document of /api/v1. The gateway
// serves it at GET /api/v1/openapi.json and uses its paths as the table of
// known routes.
//
// The document is openapi.yaml (the platform's own routes and the shared
// components) merged with one fragment per service in services/*.yaml. A
// fragment holds `paths:` and `components:` only; each service team owns its
// file, and a path or component named twice is an error, not a silent
// override.
package openapi

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

//go:embed openapi.yaml services
var files embed.FS

// JSON returns the merged document as JSON.
func JSON() ([]byte, error) { return build(files) }

// build merges openapi.yaml and services/*.yaml of fsys.
func build(fsys fs.FS) ([]byte, error) {
	doc, err := load(fsys, "openapi.yaml")
	if err != nil {
		return nil, err
	}
	names, err := fs.Glob(fsys, "services/*.yaml")
	if err != nil {
		return nil, fmt.Errorf("listing service fragments: %w", err)
	}
	sort.Strings(names)
	for _, name := range names {
		frag, err := load(fsys, name)
		if err != nil {
			return nil, err
		}
		if err := merge(doc, frag, name); err != nil {
			return nil, err
		}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encoding openapi document: %w", err)
	}
	return b, nil
}

func load(fsys fs.FS, name string) (map[string]any, error) {
	raw, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", name, err)
	}
	return doc, nil
}

// merge adds the fragment's paths, webhooks and components to doc.
func merge(doc, frag map[string]any, name string) error {
	for key := range frag {
		if key != "paths" && key != "webhooks" && key != "components" {
			return fmt.Errorf("%s: only paths, webhooks and components may appear in a fragment, found %q", name, key)
		}
	}
	for _, key := range []string{"paths", "webhooks"} {
		if err := mergeMap(doc, key, frag[key], path.Base(name)); err != nil {
			return err
		}
	}
	comps, _ := frag["components"].(map[string]any)
	if len(comps) == 0 {
		return nil
	}
	docComps, _ := doc["components"].(map[string]any)
	if docComps == nil {
		docComps = map[string]any{}
		doc["components"] = docComps
	}
	for section, entries := range comps {
		if err := mergeMap(docComps, section, entries, path.Base(name)+" components"); err != nil {
			return err
		}
	}
	return nil
}

func mergeMap(into map[string]any, key string, add any, where string) error {
	entries, ok := add.(map[string]any)
	if !ok || len(entries) == 0 {
		return nil
	}
	dst, _ := into[key].(map[string]any)
	if dst == nil {
		dst = map[string]any{}
		into[key] = dst
	}
	for k, v := range entries {
		if _, dup := dst[k]; dup {
			return fmt.Errorf("%s: %s %q is already defined", where, key, k)
		}
		dst[k] = v
	}
	return nil
}

// WithServer returns doc (the document as JSON) with its server URL set to
// publicBaseURL + "/api/v1", so the served copy names the deployment's own
// host; an empty publicBaseURL returns doc unchanged.
func WithServer(doc []byte, publicBaseURL string) ([]byte, error) {
	if publicBaseURL == "" {
		return doc, nil
	}
	var d map[string]any
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("decoding openapi document: %w", err)
	}
	d["servers"] = []map[string]string{{"url": strings.TrimRight(publicBaseURL, "/") + "/api/v1"}}
	out, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("encoding openapi document: %w", err)
	}
	return out, nil
}
