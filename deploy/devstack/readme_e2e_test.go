package devstack

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeBlock returns the first ```sh block after the heading in the
// repository's README.
func readmeBlock(t *testing.T, heading string) string {
	t.Helper()
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(raw), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no heading %q", heading)
	}
	_, block, ok := strings.Cut(after, "```sh\n")
	if !ok {
		t.Fatalf("README.md has no sh block under %q", heading)
	}
	block, _, _ = strings.Cut(block, "```")
	return block
}

// readmeFirstPayment runs the README's "First payment" walk-through, as a
// reader pastes it, twice against the running stack: the second run must
// work as well as the first (a new receivable for the same contact) and
// print a payment link that can be copied as it is.
func (e *e2e) readmeFirstPayment(t *testing.T) {
	script := readmeBlock(t, "## First payment")
	dir := t.TempDir()
	if err := os.Symlink(e.info.Root, filepath.Join(dir, ".paylane")); err != nil {
		t.Fatal(err)
	}
	work, err := filepath.Abs("../../go.work")
	if err != nil {
		t.Fatal(err)
	}
	receivable := regexp.MustCompile(`(?m)^receivable ([0-9A-HJKMNP-TV-Z]{26})$`)
	link := regexp.MustCompile(`https://localhost:\d+/l/r/[0-9A-Z]{26}\?[^"\s\\]*&[^"\s\\]*`)
	var seen []string
	for run := 1; run <= 2; run++ {
		cmd := exec.CommandContext(t.Context(), "bash", "-e", "-o", "pipefail", "-c", script)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK="+work)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("run %d of the walk-through: %v\n%s", run, err, out)
		}
		m := receivable.FindSubmatch(out)
		if m == nil {
			t.Fatalf("run %d printed no receivable id:\n%s", run, out)
		}
		seen = append(seen, string(m[1]))
		if !link.Match(out) {
			t.Errorf("run %d printed no payment link to copy as it is:\n%s", run, out)
		}
	}
	if seen[0] == seen[1] {
		t.Errorf("both runs printed receivable %s; want a new one each run", seen[0])
	}
}
