// Package apifuzz reads the gateway's OpenAPI document and drives the
// documented operations with hostile requests: the tenant-isolation and
// ability sweeps of the end-to-end tests and the HTTP fuzz pass of
// `make fuzz` share it.
package apifuzz

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Operation is one documented method of one path.
type Operation struct {
	Method string // upper case
	Path   string // as documented, relative to /api/v1: /contacts/{contact}
	ID     string // operationId
	// Abilities is x-paylane-ability: one ability, or the abilities of
	// which the request decides one; empty when none is needed.
	Abilities []string
	// Declared reports whether the operation carries x-paylane-ability.
	Declared bool
	// Public is true when the operation needs no token (security: []).
	Public bool
	Params []Param
	// Body is the resolved schema of the JSON request body; nil when the
	// operation takes none.
	Body         Schema
	BodyRequired bool
}

// Param is a path or query parameter.
type Param struct {
	Name, In string
	Required bool
	Schema   Schema
}

// Schema is a JSON Schema object with every $ref resolved.
type Schema = map[string]any

// PathParams returns the names of the path's template parameters in order.
func (o Operation) PathParams() []string {
	var out []string
	for _, seg := range strings.Split(o.Path, "/") {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			out = append(out, seg[1:len(seg)-1])
		}
	}
	return out
}

// Query returns the query parameters.
func (o Operation) Query() []Param {
	var out []Param
	for _, p := range o.Params {
		if p.In == "query" {
			out = append(out, p)
		}
	}
	return out
}

// Writes reports whether the operation changes state (not GET).
func (o Operation) Writes() bool { return o.Method != "GET" }

// String is "METHOD /path (operationId)".
func (o Operation) String() string { return o.Method + " " + o.Path + " (" + o.ID + ")" }

var methods = []string{"get", "post", "put", "patch", "delete", "head", "options"}

// Parse reads the document (as JSON) and returns its operations sorted by
// path then method.
func Parse(doc []byte) ([]Operation, error) {
	var root map[string]any
	if err := json.Unmarshal(doc, &root); err != nil {
		return nil, fmt.Errorf("decoding openapi document: %w", err)
	}
	r := resolver{root: root}
	paths, _ := root["paths"].(map[string]any)
	if len(paths) == 0 {
		return nil, fmt.Errorf("openapi document lists no paths")
	}
	var ops []Operation
	for path, rawItem := range paths {
		item, _ := r.resolve(rawItem, 0).(map[string]any)
		common, _ := item["parameters"].([]any)
		for _, m := range methods {
			rawOp, ok := item[m].(map[string]any)
			if !ok {
				continue
			}
			op := Operation{Method: strings.ToUpper(m), Path: path}
			op.ID, _ = rawOp["operationId"].(string)
			if sec, ok := rawOp["security"].([]any); ok && len(sec) == 0 {
				op.Public = true
			}
			if ab, ok := rawOp["x-paylane-ability"]; ok {
				op.Declared = true
				switch v := ab.(type) {
				case string:
					op.Abilities = []string{v}
				case []any:
					for _, a := range v {
						if s, ok := a.(string); ok {
							op.Abilities = append(op.Abilities, s)
						}
					}
				}
			}
			own, _ := rawOp["parameters"].([]any)
			for _, rp := range append(slices.Clone(common), own...) {
				p, _ := r.resolve(rp, 0).(map[string]any)
				in, _ := p["in"].(string)
				if in != "path" && in != "query" {
					continue
				}
				name, _ := p["name"].(string)
				req, _ := p["required"].(bool)
				sch, _ := p["schema"].(map[string]any)
				op.Params = append(op.Params, Param{Name: name, In: in, Required: req || in == "path", Schema: sch})
			}
			if rb, ok := r.resolve(rawOp["requestBody"], 0).(map[string]any); ok {
				op.BodyRequired, _ = rb["required"].(bool)
				content, _ := rb["content"].(map[string]any)
				if js, ok := content["application/json"].(map[string]any); ok {
					op.Body, _ = js["schema"].(map[string]any)
					if op.Body == nil {
						op.Body = Schema{}
					}
				}
			}
			ops = append(ops, op)
		}
	}
	sort.Slice(ops, func(i, j int) bool {
		if ops[i].Path != ops[j].Path {
			return ops[i].Path < ops[j].Path
		}
		return ops[i].Method < ops[j].Method
	})
	return ops, nil
}

// resolver inlines local $refs (#/components/...).
type resolver struct{ root map[string]any }

// maxRefDepth bounds the inlining of recursive schemas.
const maxRefDepth = 12

func (r resolver) resolve(v any, depth int) any {
	switch x := v.(type) {
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok {
			if depth >= maxRefDepth {
				return map[string]any{}
			}
			return r.resolve(r.lookup(ref), depth+1)
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = r.resolve(e, depth)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = r.resolve(e, depth)
		}
		return out
	default:
		return v
	}
}

func (r resolver) lookup(ref string) any {
	if !strings.HasPrefix(ref, "#/") {
		return map[string]any{}
	}
	var cur any = r.root
	for _, part := range strings.Split(ref[2:], "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return map[string]any{}
		}
		cur = m[part]
	}
	if cur == nil {
		return map[string]any{}
	}
	return cur
}
