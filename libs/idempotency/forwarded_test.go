package idempotency_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/paylane/paylane/libs/idempotency"
)

func TestForwardedRecordsAReplay(t *testing.T) {
	t.Parallel()
	replay := http.Header{}
	replay.Set(idempotency.HeaderReplayed, "true")
	replay.Set(idempotency.HeaderOriginalRequestID, "01JD3X0Q4Z8W2E5R7T9Y1V3K5N")

	ctx, f := idempotency.WithForwarded(context.Background())
	idempotency.NoteForwarded(ctx, http.Header{}) // a fresh answer first
	if f.Replayed {
		t.Fatal("a fresh answer was recorded as a replay")
	}
	idempotency.NoteForwarded(ctx, replay)
	if !f.Replayed || f.OriginalRequestID != "01JD3X0Q4Z8W2E5R7T9Y1V3K5N" {
		t.Errorf("recorded %+v, want the replay and its original request id", *f)
	}
	idempotency.NoteForwarded(context.Background(), replay) // no record: nothing to do, no panic
}
