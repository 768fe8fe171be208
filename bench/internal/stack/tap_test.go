package stack

import (
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTapLearnsInternalListenersAndPassesLinesOn(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	tp := newTap(&out)
	lines := []string{
		`{"level":"INFO","msg":"contacts-svc started","service":"contacts-svc","http_addr":"127.0.0.1:1","internal_addr":"127.0.0.1:2"}` + "\n",
		`{"level":"INFO","msg":"gateway started","service":"gateway","http_addr":"127.0.0.1:3","internal_addr":"127.0.0.1:4"}` + "\n",
		`{"level":"INFO","msg":"request","service":"gateway","internal":"no"}` + "\n",
		"not json \"internal_addr\"\n",
	}
	for _, l := range lines {
		if _, err := io.WriteString(tp, l); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]string{"contacts-svc": "127.0.0.1:2", "gateway": "127.0.0.1:4"}
	if diff := cmp.Diff(want, tp.internal()); diff != "" {
		t.Errorf("internal listeners (-want +got):\n%s", diff)
	}
	if got := out.String(); got != strings.Join(lines, "") {
		t.Errorf("passed on %q, want every line unchanged", got)
	}
}
