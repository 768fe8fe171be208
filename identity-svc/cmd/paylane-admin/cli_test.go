package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/identity-svc/internal/testenv"
)

// TestOutputFormats: listing and showing commands print a table or JSON as
// --output says, before or after the command; without it, JSON when stdout
// is not a terminal (the test's buffer), and a table on a terminal.
func TestOutputFormats(t *testing.T) {
	t.Parallel()
	svc := testenv.Start(t, nil)
	conn := []string{"--admin-url", svc.BaseURL(), "--admin-token", testenv.AdminToken, "--config", writeConfig(t, devstack{})}
	var ten client.Tenant
	mustRun(t, &ten, append(conn, "tenants", "create", "--name", "Acme\tPlumbing", "--sms-number", "+33612345678")...)
	mustRun(t, nil, append(conn, "tokens", "create", "--tenant", ten.ID, "--name", "sync", "--abilities", "all")...)

	table := func(args ...string) []string {
		t.Helper()
		code, stdout, stderr := cliRun(t, append(conn, args...)...)
		if code != 0 || json.Valid([]byte(stdout)) {
			t.Fatalf("%s: exit %d, stderr %q, stdout (want a table):\n%s", strings.Join(args, " "), code, stderr, stdout)
		}
		return strings.Split(strings.TrimRight(stdout, "\n"), "\n")
	}
	lines := table("tenants", "list", "--output", "table")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "ID ") || !strings.Contains(lines[0], "NAME") ||
		!strings.Contains(lines[1], ten.ID) || !strings.Contains(lines[1], "Acme Plumbing") || !strings.Contains(lines[1], "+33612345678") {
		t.Errorf("tenants list table:\n%s", strings.Join(lines, "\n"))
	}
	// The columns line up: NAME starts where the name does.
	if strings.Index(lines[0], "NAME") != strings.Index(lines[1], "Acme") {
		t.Errorf("columns do not align:\n%s", strings.Join(lines, "\n"))
	}
	lines = table("-o", "table", "tenants", "show", ten.ID)
	if !strings.HasPrefix(lines[0], "ID") || !strings.Contains(lines[0], ten.ID) || !strings.Contains(strings.Join(lines, "\n"), "OPT-IN") {
		t.Errorf("tenants show table:\n%s", strings.Join(lines, "\n"))
	}
	lines = table("tokens", "list", "--tenant", ten.ID, "-o", "table")
	if len(lines) != 2 || !strings.Contains(lines[0], "ABILITIES") || !strings.Contains(lines[1], "sync") || !strings.Contains(lines[1], "…") {
		t.Errorf("tokens list table:\n%s", strings.Join(lines, "\n"))
	}
	// The command's own flag wins over the one before the command.
	var page client.TenantPage
	mustRun(t, &page, append(conn, "--output", "table", "tenants", "list", "--output", "json")...)
	if len(page.Data) != 1 || page.Data[0].ID != ten.ID {
		t.Errorf("tenants list json: %+v", page)
	}
	// No flag, not a terminal: JSON.
	mustRun(t, &page, append(conn, "tenants", "list")...)

	c := &cli{terminal: true}
	if got := c.format(output{}); got != formatTable {
		t.Errorf("on a terminal the default is %q, want table", got)
	}
	if got := c.format(output{format: formatJSON}); got != formatJSON {
		t.Errorf("--output json on a terminal gives %q", got)
	}
	if f, err := os.Open(os.DevNull); err == nil {
		if isTerminal(f) {
			t.Errorf("%s counts as a terminal", os.DevNull)
		}
		f.Close()
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, stdout, stderr := cliRun(t, args...)
		if code != 0 || !strings.HasPrefix(stdout, "paylane-admin ") || !strings.Contains(stdout, runtime.Version()) ||
			!strings.Contains(stdout, "revision") || stderr != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	var v buildVersion
	mustRun(t, &v, "version", "--output", "json")
	if v.GoVersion != runtime.Version() || v.Version == "" {
		t.Errorf("version json: %+v", v)
	}
	stamped := versionOf(&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "3f2c9a1"},
			{Key: "vcs.time", Value: "2026-11-28T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}})
	if got := stamped.String(); got != "paylane-admin v1.2.3, revision 3f2c9a1 (2026-11-28T10:00:00Z), modified, go1.26.8" {
		t.Errorf("version line %q", got)
	}
}

// completeWith sources the bash completion script and asks it for the
// words after the given command line (the last word being completed).
func completeWith(t *testing.T, script string, words ...string) string {
	t.Helper()
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = "'" + w + "'"
	}
	cmd := exec.Command("bash", "--norc", "--noprofile", "-c", `source "$1" && COMP_WORDS=(`+strings.Join(quoted, " ")+
		`) && COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) && _paylane_admin && echo "${COMPREPLY[*]}"`, "bash", script)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("completing %v: %v\n%s", words, err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestCompletionBash(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := cliRun(t, "completion", "bash")
	if code != 0 || stderr != "" {
		t.Fatalf("completion bash: exit %d, stderr %q", code, stderr)
	}
	script := filepath.Join(t.TempDir(), "paylane-admin.bash")
	if err := os.WriteFile(script, []byte(stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("bash", "--norc", "--noprofile", "-c", `source "$1" && complete -p paylane-admin`, "bash", script).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "complete -F _paylane_admin paylane-admin" {
		t.Fatalf("complete -p paylane-admin: %v\n%s", err, out)
	}
	tests := []struct {
		words []string
		want  string
	}{
		{[]string{"paylane-admin", "to"}, "tokens"},
		{[]string{"paylane-admin", "tenants", ""}, "create update list show"},
		{[]string{"paylane-admin", "--config", "x.json", "-o", "table", "tokens", "create", "--t"}, "--tenant --token-only"},
		{[]string{"paylane-admin", "tenants", "list", "--output", ""}, "json table"},
		{[]string{"paylane-admin", "messages", "--tenant", "T1", "--p"}, "--page --per-page"},
		{[]string{"paylane-admin", "completion", "z"}, "zsh"},
		{[]string{"paylane-admin", "--ver"}, "--version"},
	}
	for _, tt := range tests {
		if got := completeWith(t, script, tt.words...); got != tt.want {
			t.Errorf("completing %q: %q, want %q", tt.words, got, tt.want)
		}
	}
}

func TestCompletionZsh(t *testing.T) {
	t.Parallel()
	code, stdout, _ := cliRun(t, "completion", "zsh")
	if code != 0 || !strings.HasPrefix(stdout, "#compdef paylane-admin\n") ||
		!strings.Contains(stdout, "compdef _paylane_admin paylane-admin") {
		t.Fatalf("completion zsh: exit %d\n%s", code, stdout)
	}
	create := regexp.MustCompile(`"tenants/create"\) echo "([^"]*)"`).FindStringSubmatch(stdout)
	if create == nil || !strings.Contains(create[1], "--name") || !strings.Contains(create[1], "--output") {
		t.Errorf("completion zsh offers no tenants create flags:\n%s", stdout)
	}
}

// TestCompletionFlagsExist: the completion offers each command's own flags
// (read from its flag set) and the global ones the command line takes.
func TestCompletionFlagsExist(t *testing.T) {
	t.Parallel()
	want := map[string][]string{
		"tenants/create": {"--name", "--sms-number", "--opt-in", "--output"},
		"tokens/create":  {"--tenant", "--abilities", "--token-only"},
		"messages/":      {"--tenant", "--to", "--page"},
	}
	for _, c := range completions() {
		words := strings.Join(c.words, " ")
		for _, w := range want[c.cmd+"/"+c.sub] {
			if !strings.Contains(" "+words+" ", " "+w+" ") {
				t.Errorf("%s %s offers %q, without %s", c.cmd, c.sub, words, w)
			}
		}
		delete(want, c.cmd+"/"+c.sub)
		if strings.Contains(words, "--o ") || strings.HasSuffix(words, "--o") {
			t.Errorf("%s %s offers the one-letter flag as --o", c.cmd, c.sub)
		}
	}
	if len(want) > 0 {
		t.Errorf("no completion for %v", want)
	}
	cfg := writeConfig(t, devstack{})
	for _, w := range globalFlags() {
		if _, _, stderr := cliRun(t, "--config", cfg, w); strings.Contains(stderr, "flag provided but not defined") {
			t.Errorf("paylane-admin does not take %s", w)
		}
	}
}

// TestMessagesTable: the sink's messages as a table keep each body whole
// (a person copies the link from it) and say which page they are.
func TestMessagesTable(t *testing.T) {
	t.Parallel()
	var gotQuery string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotQuery = r.URL.RawQuery
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"data":[{"created_at":"2026-11-22T01:21:17.000Z","to":"+15550001111","status":"sent",`+
			`"body":"Pay: https://pay.example/l/r/01J?expires=1\u0026signature=ab"}],"meta":{"current_page":2,"per_page":1,"total":3,"last_page":3}}`)
	}))
	defer srv.Close()
	code, stdout, stderr := cliRun(t, "--admin-url", srv.URL, "--admin-token", "tok", "--config", writeConfig(t, devstack{}),
		"messages", "--tenant", "T1", "--page", "2", "--per-page", "1", "-o", "table")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if gotQuery != "page=2&per_page=1" {
		t.Errorf("query %q", gotQuery)
	}
	lines := strings.Split(stdout, "\n")
	if !strings.HasPrefix(lines[0], "CREATED") || !strings.Contains(lines[1], "+15550001111") ||
		!strings.HasSuffix(lines[1], "Pay: https://pay.example/l/r/01J?expires=1&signature=ab") ||
		!strings.Contains(stdout, "page 2 of 3 (3 messages") {
		t.Errorf("messages table:\n%s", stdout)
	}
}
