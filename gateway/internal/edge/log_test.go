package edge_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/paylane/paylane/gateway/internal/edge"
	"github.com/paylane/paylane/libs/obs"
)

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestLogsCarryNoTokenNorPhone(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	e := newEnv(t, func(cfg *edge.Config, _ *env) {
		cfg.Logger = obs.NewLogger("gateway", &logs, slog.LevelDebug)
	})
	secret := e.token[strings.Index(e.token, "|")+1:]
	requests := []req{
		{path: "/api/v1/contacts?phone=%2B15555550123", token: e.token},
		{path: "/api/v1/contacts/+15555550123", token: e.token},
		{path: "/api/v1/nope/+15555550123", token: e.token},
		{method: http.MethodPost, path: "/api/v1/contacts", token: e.token, body: []byte(`{"phone":"+15555550123"`)},
		{path: "/l/r/x?expires=1&signature=deadbeef"},
	}
	for _, r := range requests {
		do(t, e.url, r)
	}
	e.identity.Close()
	do(t, e.url, req{path: "/api/v1/contacts", token: "pl_3|CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC"})
	out := logs.String()
	if !strings.Contains(out, `"request"`) {
		t.Fatalf("no access log lines: %s", out)
	}
	for _, leak := range []string{secret, "CCCCCCCCCCCC", "15555550123", "deadbeef", "Bearer"} {
		if strings.Contains(out, leak) {
			t.Errorf("logs contain %q:\n%s", leak, out)
		}
	}
}
