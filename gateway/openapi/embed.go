// Package openapi embeds the OpenAPI 3.1 document of /api/v1. The gateway
// serves it at GET /api/v1/openapi.json and uses its paths as the table of
// known routes.
package openapi

import (
	_ "embed"
	"fmt"

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
