package idempotency_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/paylane/paylane/libs/tenancy"
)

// TestKeyRowsRefuseWhatNoRequestCanStore: the column domains (migration
// 00003) refuse a key outside 1..128 characters, a fingerprint that is not
// 32 bytes and a status outside 100..599, as the CHECK constraints they
// replaced did; a valid row goes in.
func TestKeyRowsRefuseWhatNoRequestCanStore(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	sum := make([]byte, 32)
	tests := []struct {
		name   string
		key    string
		sum    []byte
		status int
		ok     bool
	}{
		{"valid", "k-1", sum, 201, true},
		{"empty key", "", sum, 201, false},
		{"key over 128", strings.Repeat("k", 129), sum, 201, false},
		{"short fingerprint", "k-2", sum[:31], 201, false},
		{"status 99", "k-3", sum, 99, false},
		{"status 600", "k-4", sum, 600, false},
	}
	for _, tt := range tests {
		err := tenancy.Do(ctx, e.pool, tenantA, func(tx pgx.Tx) error {
			_, err := tx.Exec(ctx, `INSERT INTO idempotency_keys (tenant_id, key, method, path, body_sha256, request_id, status)
				VALUES ($1, $2::text, 'POST', '/things', $3::bytea, 'req', $4::integer)`, tenantA, tt.key, tt.sum, tt.status)
			return err
		})
		var pgErr *pgconn.PgError
		switch {
		case tt.ok && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case !tt.ok && !(errors.As(err, &pgErr) && pgErr.Code == "23514"):
			t.Errorf("%s: err = %v, want a check violation", tt.name, err)
		}
	}
}
