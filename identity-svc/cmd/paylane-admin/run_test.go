package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/identity-svc/internal/testenv"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// cliRun runs the command and returns its exit status and output.
func cliRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// mustRun runs the command, requires success and decodes its JSON output.
func mustRun(t *testing.T, out any, args ...string) {
	t.Helper()
	code, stdout, stderr := cliRun(t, args...)
	if code != 0 {
		t.Fatalf("paylane-admin %s = %d, stderr %s", strings.Join(args, " "), code, stderr)
	}
	if out != nil {
		if err := json.Unmarshal([]byte(stdout), out); err != nil {
			t.Fatalf("output of %s is not JSON: %v\n%s", strings.Join(args, " "), err, stdout)
		}
	}
}

func TestTenantsAndTokens(t *testing.T) {
	t.Parallel()
	svc := testenv.Start(t, nil)
	conn := []string{"--admin-url", svc.BaseURL(), "--admin-token", testenv.AdminToken, "--config", writeConfig(t, devstack{})}

	var ten client.Tenant
	mustRun(t, &ten, append(conn, "tenants", "create", "--name", "Acme", "--currency", "EUR", "--region", "FR",
		"--sms-number", "+33612345678", "--opt-in", "--api-rpm", "90", "--batches-in-flight", "4")...)
	want := client.Tenant{ID: ten.ID, Name: "Acme", DefaultCurrency: "EUR", DefaultRegion: "FR", SMSNumber: ten.SMSNumber,
		Flags:     authz.Flags{OptIn: true},
		Limits:    authz.Limits{APIRequestsPerMinute: 90, BatchSubmissionsPerMinute: 10, BatchesInFlight: 4},
		CreatedAt: ten.CreatedAt, UpdatedAt: ten.UpdatedAt}
	if diff := cmp.Diff(want, ten); diff != "" || ten.SMSNumber == nil || *ten.SMSNumber != "+33612345678" {
		t.Errorf("tenants create (-want +got):\n%s", diff)
	}

	mustRun(t, &ten, append(conn, "tenants", "update", ten.ID, "--ai-gateway", "--opt-in=false", "--api-rpm", "0", "--batch-rpm", "20")...)
	want.Flags = authz.Flags{AIGateway: true}
	want.Limits = authz.Limits{APIRequestsPerMinute: 60, BatchSubmissionsPerMinute: 20, BatchesInFlight: 4}
	want.UpdatedAt = ten.UpdatedAt
	if diff := cmp.Diff(want, ten); diff != "" {
		t.Errorf("tenants update (-want +got):\n%s", diff)
	}

	var shown client.Tenant
	mustRun(t, &shown, append(conn, "tenants", "show", ten.ID)...)
	if diff := cmp.Diff(ten, shown); diff != "" {
		t.Errorf("tenants show (-want +got):\n%s", diff)
	}
	var tenants client.TenantPage
	mustRun(t, &tenants, append(conn, "tenants", "list", "--per-page", "5")...)
	if tenants.Meta.Total != 1 || tenants.Meta.PerPage != 5 || tenants.Data[0].ID != ten.ID {
		t.Errorf("tenants list = %+v", tenants)
	}

	var tok client.NewToken
	mustRun(t, &tok, append(conn, "tokens", "create", "--tenant", ten.ID, "--name", "all", "--abilities", "all")...)
	if diff := cmp.Diff(authz.All(), tok.Abilities); diff != "" {
		t.Errorf("--abilities all (-want +got):\n%s", diff)
	}
	in, err := client.New(svc.BaseURL(), nil).Introspect(context.Background(), tok.Token, "")
	if err != nil || in.TokenID != tok.ID {
		t.Fatalf("the printed token does not introspect: %+v, %v", in, err)
	}

	code, stdout, _ := cliRun(t, append(conn, "tokens", "create", "--tenant", ten.ID, "--name", "sync",
		"--abilities", "api:view-contact, api:view-any-contact", "--expires-at", "2999-01-01T00:00:00Z", "--token-only")...)
	if code != 0 || !strings.HasPrefix(stdout, "pl_") || strings.Count(stdout, "\n") != 1 {
		t.Errorf("--token-only printed %q (exit %d)", stdout, code)
	}

	var tokens client.TokenPage
	mustRun(t, &tokens, append(conn, "tokens", "list", "--tenant", ten.ID)...)
	if tokens.Meta.Total != 2 || tokens.Data[1].ID != tok.ID {
		t.Errorf("tokens list = %+v", tokens)
	}
	mustRun(t, nil, append(conn, "tokens", "revoke", "--tenant", ten.ID, fmt.Sprint(tok.ID))...)
	if _, err := client.New(svc.BaseURL(), nil).Introspect(context.Background(), tok.Token, ""); err == nil {
		t.Error("the revoked token still introspects")
	}
}

func TestFailures(t *testing.T) {
	t.Parallel()
	svc := testenv.Start(t, nil)
	conn := []string{"--admin-url", svc.BaseURL(), "--admin-token", testenv.AdminToken, "--config", writeConfig(t, devstack{})}
	var ten client.Tenant
	mustRun(t, &ten, append(conn, "tenants", "create", "--name", "Acme")...)
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr []string
	}{
		{"no command", conn, 2, []string{"no command given", "usage:"}},
		{"unknown command", append(conn, "launch"), 2, []string{`unknown command "launch"`, "usage:"}},
		{"unknown subcommand", append(conn, "tenants", "delete"), 2, []string{`unknown tenants subcommand "delete"`}},
		{"unknown flag", append(conn, "tenants", "create", "--name", "x", "--colour", "red"), 2, []string{"colour"}},
		{"missing name", append(conn, "tenants", "create"), 2, []string{"--name"}},
		{"missing id", append(conn, "tenants", "show"), 2, []string{"TENANT_ID"}},
		{"bad output", append(conn, "tenants", "list", "--output", "yaml"), 2, []string{"want json or table"}},
		{"bad global output", append(conn, "-o", "xml", "tenants", "list"), 2, []string{"want json or table"}},
		{"bad completion shell", []string{"completion", "fish"}, 2, []string{"bash or zsh"}},
		{"unknown tenant", append(conn, "tenants", "show", "01J00000000000000000000000"), 1,
			[]string{"paylane-admin: 404 resource_not_found: ", "request id: "}},
		{"invalid currency", append(conn, "tenants", "update", ten.ID, "--currency", "usd"), 1,
			[]string{"422 validation_failed", "\n  default_currency: "}},
		{"unknown ability", append(conn, "tokens", "create", "--tenant", ten.ID, "--name", "x", "--abilities", "api:view-contact,api:fly"),
			1, []string{"422 validation_failed", "api:fly"}},
		{"bad expiry", append(conn, "tokens", "create", "--tenant", ten.ID, "--name", "x", "--abilities", "all", "--expires-at", "tomorrow"),
			2, []string{"--expires-at"}},
		{"bad token id", append(conn, "tokens", "revoke", "--tenant", ten.ID, "abc"), 2, []string{"positive integer"}},
		{"wrong admin token", []string{"--admin-url", svc.BaseURL(), "--admin-token", "nope", "--config", conn[5], "tenants", "list"},
			1, []string{"401 unauthenticated"}},
		{"unreachable admin plane", []string{"--admin-url", "http://127.0.0.1:1", "--admin-token", "t", "--config", conn[5], "tenants", "list"},
			1, []string{"cannot reach the admin API at http://127.0.0.1:1/admin/v1/tenants", "make run"}},
		{"no connection settings", []string{"--config", writeConfig(t, devstack{}), "tenants", "list"}, 1, []string{"no admin URL or token"}},
		{"missing config file", []string{"--config", filepath.Join(t.TempDir(), "none.json"), "tenants", "list"}, 1, []string{"none.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := cliRun(t, tt.args...)
			if code != tt.code || stdout != "" {
				t.Errorf("exit %d, stdout %q; want %d and nothing", code, stdout, tt.code)
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr %q does not contain %q", stderr, s)
				}
			}
			if strings.Contains(stderr, "invalid command line") {
				t.Errorf("stderr speaks of the parser's sentinel: %q", stderr)
			}
		})
	}
}

func writeConfig(t *testing.T, ds devstack) string {
	t.Helper()
	b, err := json.Marshal(ds)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "devstack.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// The devstack file is found from a subdirectory, and the environment
// overrides it. Not parallel: it changes the working directory and env.
func TestConnectionSettingsFromDevstackAndEnvironment(t *testing.T) {
	svc := testenv.Start(t, nil)
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".paylane"), 0o700); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(devstack{AdminURL: svc.BaseURL(), AdminToken: "stale-token"})
	if err := os.WriteFile(filepath.Join(root, ".paylane", "devstack.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)

	code, _, stderr := cliRun(t, "tenants", "list")
	if code != 1 || !strings.Contains(stderr, "401 unauthenticated") {
		t.Fatalf("with the file's (wrong) token: exit %d, stderr %q; want a 401 from the file's URL", code, stderr)
	}
	t.Setenv("PAYLANE_ADMIN_TOKEN", testenv.AdminToken)
	var page client.TenantPage
	mustRun(t, &page, "tenants", "list")
	t.Setenv("PAYLANE_ADMIN_URL", "http://127.0.0.1:1")
	mustRun(t, &page, "--admin-url", svc.BaseURL(), "tenants", "list")
}

func TestMessagesQueriesTheSink(t *testing.T) {
	t.Parallel()
	var gotPath, gotQuery, gotAuth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotPath, gotQuery, gotAuth = r.URL.Path, r.URL.Query().Get("to"), r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "application/json")
		// As Go services write it: "&" escaped as \u0026.
		fmt.Fprint(w, `{"data":[{"to":"+15550001111","body":"Pay: https://pay.example/l/r/01J?expires=1\u0026signature=ab"}]}`)
	}))
	defer srv.Close()
	var out struct {
		Data []map[string]string `json:"data"`
	}
	args := []string{"--admin-url", srv.URL, "--admin-token", "tok", "--config", writeConfig(t, devstack{}),
		"messages", "--tenant", "T1", "--to", "+15550001111"}
	mustRun(t, &out, args...)
	if gotPath != "/admin/v1/tenants/T1/messages" || gotQuery != "+15550001111" || gotAuth != "Bearer tok" {
		t.Errorf("request %s?to=%s with %q", gotPath, gotQuery, gotAuth)
	}
	const link = "https://pay.example/l/r/01J?expires=1&signature=ab"
	if len(out.Data) != 1 || out.Data[0]["body"] != "Pay: "+link {
		t.Errorf("printed %+v", out)
	}
	// A person copies the link from the printed text: it must read as sent.
	if _, stdout, _ := cliRun(t, args...); !strings.Contains(stdout, link) {
		t.Errorf("printed text lacks the link as sent:\n%s", stdout)
	}
}

// TestHelpExitsZero: --help, -h and help answer the usage on stdout with
// exit 0 on every command and subcommand, before any configuration is read.
func TestHelpExitsZero(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"--admin-url", "x", "--help"},
		{"tenants", "--help"}, {"tenants", "-h"}, {"tenants", "help"}, {"tenants", "create", "--help"}, {"tenants", "update", "-h"},
		{"tenants", "list", "--help"}, {"tenants", "show", "-h"},
		{"tokens", "--help"}, {"tokens", "create", "--help"}, {"tokens", "list", "-h"}, {"tokens", "revoke", "--help"},
		{"messages", "-h"}, {"messages", "--tenant", "T", "--help"}, {"version", "--help"}, {"completion", "--help"}, {"completion", "-h"}} {
		code, stdout, stderr := cliRun(t, args...)
		if code != 0 || !strings.Contains(stdout, "usage: paylane-admin") || stderr != "" {
			t.Errorf("paylane-admin %s = exit %d, stdout %q, stderr %q; want 0 with the usage on stdout",
				strings.Join(args, " "), code, stdout, stderr)
		}
	}
	// A command's help names its own flags.
	_, stdout, _ := cliRun(t, "tokens", "create", "--help")
	for _, want := range []string{"tokens create --tenant ID", "  --token-only\n", "  --output format\n", "print only the plaintext token"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("tokens create --help lacks %q:\n%s", want, stdout)
		}
	}
}
