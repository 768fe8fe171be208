// Package baseline is the bare service the benchmarks compare the product
// with: Fiber and pgx, no gateway, no token, no tenant scope, no
// idempotency, no events. It serves over TLS with the gateway's certificate
// so the load generator does the same work against both.
//
//	GET  /contacts/:id  the contacts-svc single-read SELECT (contacts joined
//	                    to phones by primary key) on the contacts database,
//	                    as the superuser, so row-level security is bypassed
//	POST /contacts      a single-row INSERT into bench.contacts (a table
//	                    without RLS, foreign keys or secondary indexes) in
//	                    the scratch database "bench" of the same cluster
package baseline

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"

	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/libs/pgdb"
)

// Options configure the baseline server.
type Options struct {
	// ReadDSN reaches the contacts database; WriteDSN the bench database.
	ReadDSN, WriteDSN string
	// TenantID scopes the read as the product's read is scoped.
	TenantID string
	// MaxConns sizes each pool, as DB_MAX_CONNS sizes a service's.
	MaxConns int32
	// CertFile and KeyFile serve TLS.
	CertFile, KeyFile string
	// ShapeDSN, when set, reaches the contacts database as a member of its
	// app role and enables the what-if routes /tx/sequential and
	// /tx/pipelined (txshape.go).
	ShapeDSN string
}

// Server is a running baseline.
type Server struct {
	// URL is https://localhost:<port>.
	URL         string
	app         *fiber.App
	read, write *pgxpool.Pool
	shape       *pgxpool.Pool // nil without Options.ShapeDSN
	done        chan error
}

// Start prepares the bench database, opens the pools and serves on
// 127.0.0.1:0 until Stop.
func Start(ctx context.Context, opts Options) (*Server, error) {
	cert, err := tls.LoadX509KeyPair(opts.CertFile, opts.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("loading the certificate: %w", err)
	}
	s := &Server{done: make(chan error, 1)}
	if s.read, err = pgdb.Open(ctx, opts.ReadDSN, opts.MaxConns); err != nil {
		return nil, fmt.Errorf("opening the read pool: %w", err)
	}
	if s.write, err = pgdb.Open(ctx, opts.WriteDSN, opts.MaxConns); err != nil {
		s.read.Close()
		return nil, fmt.Errorf("opening the write pool: %w", err)
	}
	h := &handlers{read: s.read, write: s.write, tenantID: opts.TenantID}
	s.app = fiber.New(fiber.Config{DisableStartupMessage: true})
	s.app.Get("/contacts/:id", h.show)
	s.app.Post("/contacts", h.create)
	if opts.ShapeDSN != "" {
		if s.shape, err = pgdb.Open(ctx, opts.ShapeDSN, opts.MaxConns); err != nil {
			s.close()
			return nil, fmt.Errorf("opening the what-if pool: %w", err)
		}
		sh := &shapes{pool: s.shape, tenantID: opts.TenantID}
		s.app.Post("/tx/sequential", sh.sequential)
		s.app.Post("/tx/pipelined", sh.pipelined)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.close()
		return nil, fmt.Errorf("listening: %w", err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	s.URL = "https://localhost:" + port
	tlsLn := tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	go func() { s.done <- s.app.Listener(tlsLn) }()
	return s, nil
}

// Stop shuts the server down and closes the pools.
func (s *Server) Stop() error {
	err := s.app.Shutdown()
	<-s.done
	s.close()
	return err
}

func (s *Server) close() {
	s.read.Close()
	s.write.Close()
	if s.shape != nil {
		s.shape.Close()
	}
}
