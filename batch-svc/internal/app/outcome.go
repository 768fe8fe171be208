package app

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/paylane/paylane/batch-svc/internal/batch"
	"github.com/paylane/paylane/batch-svc/internal/store"
	"github.com/paylane/paylane/batch-svc/internal/wire"
	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/outbox"
)

// outcome turns a chunk's row results into counts and row errors: one
// error per field message, in row order, with the row's external id when
// the item has one. An answer that does not match the chunk row for row is
// a rejection.
func outcome(chunk batch.Chunk, results []RowResult) (store.ChunkOutcome, error) {
	if len(results) != len(chunk.Items) {
		return store.ChunkOutcome{}, fmt.Errorf("%w: %d results for %d rows", batch.ErrRejected, len(results), len(chunk.Items))
	}
	var out store.ChunkOutcome
	for i, r := range results {
		if r.RowIndex != chunk.FirstRowIndex+i {
			return store.ChunkOutcome{}, fmt.Errorf("%w: result %d is for row %d", batch.ErrRejected, i, r.RowIndex)
		}
		if !r.Failed {
			out.Succeeded++
			continue
		}
		out.Failed++
		out.Errors = append(out.Errors, rowErrors(r, externalID(chunk.Items[i]))...)
	}
	return out, nil
}

// rowErrors lists a failed row's messages, fields in name order.
func rowErrors(r RowResult, ext string) []batch.RowError {
	if len(r.Errors) == 0 {
		return []batch.RowError{{RowIndex: r.RowIndex, ExternalID: ext, Field: "item", Message: "The row could not be written."}}
	}
	fields := make([]string, 0, len(r.Errors))
	for f := range r.Errors {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	var out []batch.RowError
	for _, f := range fields {
		for _, m := range r.Errors[f] {
			out = append(out, batch.RowError{RowIndex: r.RowIndex, ExternalID: ext, Field: f, Message: m})
		}
	}
	return out
}

// externalID is the item's own external_id when it is a string, with any
// NUL character replaced by U+FFFD (a row error keeps it as text, which
// cannot hold NUL).
func externalID(item json.RawMessage) string {
	var v struct {
		ExternalID any `json:"external_id"`
	}
	if json.Unmarshal(item, &v) != nil {
		return ""
	}
	s, _ := v.ExternalID.(string)
	return strings.ReplaceAll(s, "\x00", "\uFFFD")
}

// addCompletedEvent writes <type>.batch.completed with the header as data
// to the outbox, in tx.
func (a *App) addCompletedEvent(ctx context.Context, tx *store.Tx, h batch.Header) error {
	env, err := events.New(h.Type.CompletedEvent(), h.TenantID, "", wire.NewHeader(h, a.d.PublicBaseURL))
	if err != nil {
		return err
	}
	return outbox.Add(ctx, tx.Raw(), "", env)
}
