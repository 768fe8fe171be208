// Package openapi embeds the OpenAPI 3.1 document of /api/v1. The gateway
// serves it at GET /api/v1/openapi.json and uses its paths as the table of
// known routes.
package openapi

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"
)

//go:embed openapi.yaml
var document []byte

// YAML returns the document as written in openapi.yaml.
func YAML() []byte { return document }

// JSON returns the document converted to JSON.
func JSON() ([]byte, error) {
	b, err := yaml.YAMLToJSON(document)
	if err != nil {
		return nil, fmt.Errorf("converting openapi.yaml to json: %w", err)
	}
	return b, nil
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
