package apifuzz

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/paylane/paylane/identity-svc/client"
)

// Target is a running stack: its gateway (and the CA that signed the
// gateway's certificate) and the admin client that makes tenants.
type Target struct {
	GatewayURL, CAFile string
	Admin              *client.Admin
}

// PassOptions configure an HTTP fuzz pass.
type PassOptions struct {
	Requests int
	Workers  int
	Seed     uint64
	// Timeout is the client timeout: a request still unanswered then
	// counts as hung. Default 30 s.
	Timeout  time.Duration
	Progress io.Writer
}

// Pass runs the HTTP fuzz pass against target: it makes a tenant with one
// of every resource (whose ids the valid requests use), a second tenant
// whose valid creates interleave with the fuzzing and must all succeed,
// reads the served OpenAPI document and sends o.Requests requests derived
// from it.
func Pass(ctx context.Context, target Target, o PassOptions) (Report, error) {
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	c, err := NewClient(target.GatewayURL, target.CAFile, o.Timeout, o.Workers+1)
	if err != nil {
		return Report{}, err
	}
	defer c.Close()
	id, token, err := NewTenant(ctx, target.Admin, "HTTP fuzz")
	if err != nil {
		return Report{}, err
	}
	seeder := &Seeder{API: c, Admin: target.Admin}
	fx, err := seeder.Seed(ctx, id, token, "Fuzzed", 8000)
	if err != nil {
		return Report{}, fmt.Errorf("seeding the fuzzed tenant: %w", err)
	}
	// DELETE requests get a second set of the tenant's resources, so the
	// first stays for the other operations to reach their handlers.
	doomed, err := seeder.Seed(ctx, id, token, "Doomed", 8010)
	if err != nil {
		return Report{}, fmt.Errorf("seeding the fuzzed tenant: %w", err)
	}
	_, otherToken, err := NewTenant(ctx, target.Admin, "HTTP fuzz bystander")
	if err != nil {
		return Report{}, err
	}
	a := c.Do(ctx, Request{Method: "GET", Path: "/api/v1/openapi.json", Header: map[string]string{"Authorization": "Bearer " + token}})
	if a.Status != 200 {
		return Report{}, fmt.Errorf("GET /api/v1/openapi.json: status %d %v", a.Status, a.Err)
	}
	ops, err := Parse(a.Body)
	if err != nil {
		return Report{}, err
	}
	f := &Fuzzer{
		Ops: FuzzTargets(ops), Seed: o.Seed, Token: token,
		PathValue: func(op Operation, p string) string {
			if op.Method == "DELETE" {
				v, _ := doomed.PathValue(op, p)
				return v
			}
			v, _ := fx.PathValue(op, p)
			return v
		},
		Fill: func(op Operation) Filler {
			refs := fx.Filler(op)
			return func(path string, sch Schema) (any, bool) {
				if path == "custom_fields" { // so that the mutations reach its keys
					switch {
					case strings.HasPrefix(op.Path, "/contacts"):
						return map[string]any{fx.ContactDefinitionKey: "fuzz"}, true
					case strings.HasPrefix(op.Path, "/receivables"), strings.HasPrefix(op.Path, "/payables"):
						return map[string]any{fx.TransactionDefinitionKey: "fuzz"}, true
					}
				}
				return refs(path, sch)
			}
		},
		Query: fx.QueryValue,
	}
	bystander := func(ctx context.Context, n int) error {
		phone := fmt.Sprintf("+1415%03d%04d", 556+n/10000, n%10000)
		body, _ := json.Marshal(map[string]any{"first_name": "Bystander", "phone": phone, "external_id": fmt.Sprintf("bystander-%d", n)})
		a := c.Do(ctx, Request{Method: "POST", Path: "/api/v1/contacts", Body: body, HasBody: true,
			Header: map[string]string{"Authorization": "Bearer " + otherToken, "Content-Type": "application/json"}})
		if a.Err != nil {
			return fmt.Errorf("the other tenant's create #%d: %v", n, a.Err)
		}
		if a.Status != 201 {
			return fmt.Errorf("the other tenant's create #%d: status %d: %s", n, a.Status, excerpt(string(a.Body), 300))
		}
		return nil
	}
	rep := Run(ctx, c, f, Options{
		Requests: o.Requests, Workers: o.Workers, Bystander: bystander, BystanderEvery: 100 * time.Millisecond,
		Progress: o.Progress, ProgressEvery: 5000,
	})
	if rep.BystanderSent == 0 {
		if err := bystander(ctx, 99999); err != nil {
			rep.BystanderSent, rep.BystanderFailed = 1, 1
			rep.BystanderProblems = append(rep.BystanderProblems, err.Error())
		} else {
			rep.BystanderSent = 1
		}
	}
	return rep, nil
}
