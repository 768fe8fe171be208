package obs_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/libs/obs"
)

func TestNewLogger(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := obs.NewLogger("contacts-svc", &buf, slog.LevelInfo)
	log.Debug("hidden")
	log.Info("sent", "to", "+15551234567", "token", "pl_1|secret", "internal_token", "eyJ",
		"token_id", 12, "error", errors.New("dial +15551234567 failed"),
		"path", "/api/v1/contacts?phone=%28415%29%20354-6544", "reason", "number +1 415 585 4147 refused")

	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatalf("one JSON record expected (debug filtered), got %q: %v", buf.String(), err)
	}
	want := map[string]any{
		"service": "contacts-svc", "msg": "sent", "to": "+*******4567", "token": "redacted",
		"internal_token": "redacted", "token_id": float64(12), "error": "dial +*******4567 failed",
		"path": "/api/v1/contacts?phone=%28***%29%20***-6544", "reason": "number +* *** *** 4147 refused",
	}
	for k, w := range want {
		if diff := cmp.Diff(w, rec[k]); diff != "" {
			t.Errorf("attr %s (-want +got):\n%s", k, diff)
		}
	}
}
