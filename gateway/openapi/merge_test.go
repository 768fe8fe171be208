package openapi

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"
)

const base = `openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /healthcheck/app:
    get: {responses: {"200": {description: ok}}}
webhooks:
  contact.created:
    post: {responses: {"200": {description: ok}}}
components:
  schemas:
    Error: {type: object}
`

func TestBuildMergesFragments(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"openapi.yaml": {Data: []byte(base)},
		"services/contacts.yaml": {Data: []byte(`paths:
  /contacts:
    get: {responses: {"200": {description: ok}}}
webhooks:
  contact.updated:
    post: {responses: {"200": {description: ok}}}
components:
  schemas:
    Contact: {type: object}
`)},
	}
	b, err := build(fsys)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths      map[string]any `json:"paths"`
		Webhooks   map[string]any `json:"webhooks"`
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/healthcheck/app", "/contacts"} {
		if doc.Paths[p] == nil {
			t.Errorf("path %s missing after merge", p)
		}
	}
	for _, w := range []string{"contact.created", "contact.updated"} {
		if doc.Webhooks[w] == nil {
			t.Errorf("webhook %s missing after merge", w)
		}
	}
	for _, s := range []string{"Error", "Contact"} {
		if doc.Components.Schemas[s] == nil {
			t.Errorf("schema %s missing after merge", s)
		}
	}
}

func TestBuildRefusesClashesAndStrayKeys(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"duplicate path":    "paths:\n  /healthcheck/app:\n    get: {responses: {\"200\": {description: ok}}}\n",
		"duplicate schema":  "components:\n  schemas:\n    Error: {type: string}\n",
		"duplicate webhook": "webhooks:\n  contact.created:\n    post: {responses: {\"200\": {description: ok}}}\n",
		"stray key":         "info: {title: x}\n",
	}
	for name, frag := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fsys := fstest.MapFS{
				"openapi.yaml":       {Data: []byte(base)},
				"services/some.yaml": {Data: []byte(frag)},
			}
			_, err := build(fsys)
			if err == nil || !strings.Contains(err.Error(), "some.yaml") {
				t.Fatalf("build = %v, want an error naming the fragment", err)
			}
		})
	}
}
