// Package idempotency implements the Idempotency-Key contract of the API
// (contract section 3) on Postgres: the key, the fingerprint of the first
// request and its response are written in the same transaction as the write
// they guard, so a write happens exactly once per key, also across crashes.
//
// Concurrency is Postgres's: the first request takes a transaction
// advisory lock on the key; a concurrent request with the same key waits for
// it until the first ends (or gives up after LockTimeout with 409
// idempotency_in_progress), then reads the stored row and replays it. The
// primary key still refuses a second row for a key.
//
// Services guard their write handlers with Wrap, which passes the request's
// write transaction (Tx) to the handler explicitly; stores join it through
// InTx, the one join point. Run is the core Wrap is built on, for handlers
// that store another answer than they send.
package idempotency

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/pgdb"
)

// Headers of the contract.
const (
	// HeaderKey carries the client's key on POST, PUT and PATCH.
	HeaderKey = "Idempotency-Key"
	// HeaderReplayed is "true" on a replayed response.
	HeaderReplayed = "Idempotent-Replayed"
	// HeaderOriginalRequestID names the request whose response is replayed.
	HeaderOriginalRequestID = "Original-Request-Id"
)

const (
	// MaxKeyLength is the longest key accepted, in characters.
	MaxKeyLength = 128
	// Retention is how long a key is kept; an older key is ignored and
	// replaced, and Cleanup deletes it. The migration's cleanup policy and
	// the lookup and replace statements spell the same 24 hours.
	Retention = 24 * time.Hour
	// LockTimeout is how long a request waits for a concurrent request with
	// the same key before answering 409 idempotency_in_progress.
	LockTimeout = 10 * time.Second
)

// ErrNotStored is returned by Run, with the response, when the response may
// not be stored (5xx and 429): the caller rolls the transaction back and
// sends the response as it is.
var ErrNotStored = errors.New("idempotency: response not stored")

//go:embed migrations/*.sql
var migrations embed.FS

// Migrations returns the migration set of the idempotency_keys table
// (version table goose_idempotency), to pass to pgdb.Migrate with the
// service's own set.
func Migrations() pgdb.MigrationSet {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		panic(fmt.Errorf("idempotency: embedded migrations: %w", err)) // the embed pattern guarantees the directory
	}
	return pgdb.MigrationSet{Name: "idempotency", FS: sub}
}

// Request is what identifies a guarded request: the tenant and key (the
// scope), and the method, path and body (the fingerprint).
type Request struct {
	TenantID  string
	Key       string
	Method    string
	Path      string
	Body      []byte
	RequestID string
}

// Response is a response as stored and replayed: status, the headers that
// describe the body (Content-Type, Location) and the body, byte for byte.
type Response struct {
	Status int
	Header map[string]string
	Body   []byte
}

// Replay says whether Run replayed a stored response, and whose.
type Replay struct {
	Replayed          bool
	OriginalRequestID string
}

// ValidateKey returns the 422 of a key longer than MaxKeyLength characters
// or one that is not printable UTF-8 text (a byte that is not UTF-8, NUL or
// another control character: Postgres refuses the first two, and none can
// be a key a client meant), or nil. An empty key means "not guarded" and is
// the caller's concern.
func ValidateKey(key string) error {
	if utf8.RuneCountInString(key) > MaxKeyLength {
		return apierr.Field(HeaderKey, fmt.Sprintf("The %s header may not be greater than %d characters.", HeaderKey, MaxKeyLength))
	}
	if !utf8.ValidString(key) || strings.IndexFunc(key, unicode.IsControl) >= 0 {
		return apierr.Field(HeaderKey, fmt.Sprintf("The %s header must be printable UTF-8 text.", HeaderKey))
	}
	return nil
}

// Conflict is the 409 idempotency_conflict of a key reused with another
// request; the gateway answers it too, for a key reused on another
// service's route.
func Conflict() *apierr.Error { return conflict() }

// conflict is the 409 of a key reused with another request.
func conflict() *apierr.Error {
	return apierr.New(http.StatusConflict, apierr.CodeIdempotencyConflict,
		"The Idempotency-Key was already used with a different request.")
}

// inProgress is the 409 of a key whose first request is still running.
func inProgress() *apierr.Error {
	e := apierr.New(http.StatusConflict, apierr.CodeIdempotencyInProgress,
		"A request with this Idempotency-Key is still in progress.")
	e.RetryAfter = 1
	return e
}

// storable reports whether a response with status is kept for replay: 5xx
// and 429 are not (the client should retry them for real).
func storable(status int) bool {
	return status < http.StatusInternalServerError && status != http.StatusTooManyRequests
}
