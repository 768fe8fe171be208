package httpx

import (
	"errors"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/paylane/paylane/libs/apierr"
)

// databaseUnavailable reports whether err means the service's database
// could not be reached or dropped the connection (a restart, a failover,
// a network cut), rather than refusing the statement: the request may
// succeed when retried, so it is answered 503, not 500.
func databaseUnavailable(err error) bool {
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// Class 08 (connection exception); 57P01 admin_shutdown, 57P02
		// crash_shutdown, 57P03 cannot_connect_now (starting up).
		return strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
	}
	// The connection broke under a statement: pgconn wraps the network
	// error, or reports the connection closed.
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) {
		return true
	}
	return pgconn.SafeToRetry(err)
}

// unavailable is the answer to a request whose database was unreachable.
func unavailable() *apierr.Error {
	return &apierr.Error{Status: 503, Code: apierr.CodeServiceUnavailable,
		Message: "The service is briefly unavailable; retry.", RetryAfter: 1}
}
