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

// Served returns the document as JSON with its server URL set to
// publicBaseURL + "/api/v1", so the served copy names the deployment's own
// host; an empty publicBaseURL leaves the relative server URL.
func Served(publicBaseURL string) ([]byte, error) {
	b, err := JSON()
	if err != nil || publicBaseURL == "" {
		return b, err
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("decoding openapi document: %w", err)
	}
	doc["servers"] = []map[string]string{{"url": strings.TrimRight(publicBaseURL, "/") + "/api/v1"}}
	out, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encoding openapi document: %w", err)
	}
	return out, nil
}
