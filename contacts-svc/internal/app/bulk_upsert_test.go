package app_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/paylane/paylane/contacts-svc/client"
	"github.com/paylane/paylane/contacts-svc/internal/app"
	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/contacts-svc/internal/store"
	"github.com/paylane/paylane/contacts-svc/migrations"
	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const tenant = "01HZX3K5Q8V9W2Y4Z6A7B8C9DA"

func ptr(s string) *string { return &s }

// TestBulkUpsertGivesUpBeforeItsCaller: a chunk whose statements run past
// the bound (here: it queues behind a transaction holding the batch's
// lock, as a retry queues behind a runaway attempt) is cancelled by
// Postgres and rolled back, writing nothing, so the caller's retry finds
// the lock free; the bound is below the caller's timeout, so contacts-svc
// stops before batch-svc gives up on the call.
func TestBulkUpsertGivesUpBeforeItsCaller(t *testing.T) {
	if app.BulkStatementTimeout >= client.BulkTimeout {
		t.Fatalf("BulkStatementTimeout %v is not below the client's BulkTimeout %v", app.BulkStatementTimeout, client.BulkTimeout)
	}
	pg := testkit.PG(t)
	st := store.New(pg.Pool(t, pg.Database(t, "contacts_app", migrations.Sets()...)), nil)
	a := app.New(st, nil).WithBulkStatementTimeout(200 * time.Millisecond)
	ctx := context.Background()
	scope := app.Scope{TenantID: tenant, Region: "US"}
	req := app.BulkRequest{BatchID: "B1", OnDuplicate: contact.DuplicateUpdate, Rows: []app.BulkRow{
		{Index: 0, Input: contact.Input{ExternalID: ptr("crm-1"), FirstName: ptr("Ada"), Phone: ptr("+14155550100")}},
	}}

	holding, release, held := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		held <- st.Write(ctx, idempotency.Tx{}, tenant, func(tx *store.Tx) error {
			if err := tx.LockBatch(ctx, "B1"); err != nil {
				return err
			}
			close(holding)
			<-release
			return nil
		})
	}()
	<-holding
	_, err := a.BulkUpsert(ctx, scope, req)
	var pgErr *pgconn.PgError
	if !errors.Is(err, app.ErrBulkTimedOut) || !errors.As(err, &pgErr) || pgErr.Code != "57014" {
		t.Errorf("BulkUpsert behind the held lock = %v, want ErrBulkTimedOut (query_canceled, 57014)", err)
	}
	close(release)
	if err := <-held; err != nil {
		t.Fatal(err)
	}

	// The retry under the default bound (200 ms could cut a statement of a
	// loaded machine short).
	rows, err := app.New(st, nil).BulkUpsert(ctx, scope, req)
	if err != nil || len(rows) != 1 || rows[0].Action != contact.RowCreated {
		t.Fatalf("the retry = %+v, %v; want row 0 created", rows, err)
	}
}
