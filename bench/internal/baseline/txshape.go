package baseline

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/libs/ids"
)

// The what-if routes (bench -whatif-pipeline) run the statements of
// contacts-svc's POST /api/v1/contacts — idempotency claim in a savepoint,
// field definitions, phone record, live-owner check, contact, outbox event,
// stored response — on the contacts database's own tables, as a member of
// the app role (row-level security applies), without the gateway, token or
// HTTP hop between services:
//
//	POST /tx/sequential  one round trip per statement, as contacts-svc does
//	                     today (12 round trips)
//	POST /tx/pipelined   the same statements in 3 round trips
//
// The difference is what pipelining the write transaction would save.
const (
	shapeTimeout = "SET LOCAL lock_timeout = '10000ms'"
	shapeClaim   = `INSERT INTO idempotency_keys (tenant_id, key, method, path, body_sha256, request_id)
		VALUES ($1, $2::text, 'POST', '/api/v1/contacts', $3::bytea, $4) RETURNING true`
	shapeDefinitions = `SELECT id, key, label, type, options, required FROM contact_field_definitions
		WHERE tenant_id = $1 ORDER BY key`
	shapePhone = `INSERT INTO phones (id, tenant_id, e164) VALUES ($1, $2, $3::text)
		ON CONFLICT (tenant_id, e164) DO UPDATE SET e164 = EXCLUDED.e164 RETURNING id`
	shapeOwners = `SELECT
		coalesce((SELECT id FROM contacts WHERE tenant_id = $1 AND phone_id = $2 AND deleted_at IS NULL), ''),
		coalesce((SELECT id FROM contacts WHERE tenant_id = $1 AND external_id = $3 AND deleted_at IS NULL), '')`
	shapePhoneAndOwner = `WITH p AS (` + shapePhone + `)
		SELECT p.id, coalesce((SELECT c.id FROM contacts c
			WHERE c.tenant_id = $2 AND c.phone_id = p.id AND c.deleted_at IS NULL), '') FROM p`
	shapeContact = `INSERT INTO contacts (id, tenant_id, first_name, last_name, phone_id, email, custom_fields, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, '{}', $7, $7)`
	shapeOutbox = `INSERT INTO outbox (event_id, topic, key, tenant_id, payload)
		VALUES ($1, 'paylane.contacts.v1', $2, $2, $3)`
	shapeStore = `UPDATE idempotency_keys SET status = 201, headers = '{}', body = $3 WHERE tenant_id = $1 AND key = $2`
)

// shapes serves the what-if routes.
type shapes struct {
	pool     *pgxpool.Pool
	tenantID string
}

// write is one contact creation's values.
type write struct {
	key, phoneID, e164 string
	sum                [32]byte
	contact            contact
	body               []byte
}

func (s *shapes) newWrite(c *fiber.Ctx) (*write, error) {
	var in input
	if err := json.Unmarshal(c.Body(), &in); err != nil || in.Phone == "" {
		return nil, fiber.ErrUnprocessableEntity
	}
	now := time.Now().UTC()
	w := &write{key: ids.New(), phoneID: ids.NewAt(now), e164: in.Phone, sum: sha256.Sum256(c.Body())}
	w.contact = contact{ID: ids.NewAt(now), FirstName: in.FirstName, LastName: in.LastName, Phone: in.Phone,
		Email: in.Email, CustomFields: json.RawMessage(`{}`), CreatedAt: now, UpdatedAt: now}
	body, err := json.Marshal(fiber.Map{"data": w.contact})
	w.body = body
	return w, err
}

// serve runs fn on a pooled connection and answers 201 with the contact.
func (s *shapes) serve(c *fiber.Ctx, fn func(context.Context, *pgx.Conn, *write) error) error {
	w, err := s.newWrite(c)
	if err != nil {
		return err
	}
	ctx := c.UserContext()
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if err := fn(ctx, conn.Conn(), w); err != nil {
		if conn.Conn().PgConn().TxStatus() != 'I' {
			_, _ = conn.Exec(ctx, "ROLLBACK")
		}
		return err
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Status(fiber.StatusCreated).Send(w.body)
}

func (s *shapes) sequential(c *fiber.Ctx) error {
	return s.serve(c, func(ctx context.Context, conn *pgx.Conn, w *write) error {
		begin := &pgx.Batch{}
		begin.Queue("BEGIN")
		begin.Queue("SELECT set_config('app.tenant_id', $1, true)", s.tenantID)
		if err := conn.SendBatch(ctx, begin).Close(); err != nil {
			return err
		}
		var claimed bool
		var phoneOwner, extOwner string
		steps := []func() error{
			func() error { _, err := conn.Exec(ctx, shapeTimeout); return err },
			func() error {
				return conn.QueryRow(ctx, shapeClaim, s.tenantID, w.key, w.sum[:], w.key).Scan(&claimed)
			},
			func() error { _, err := conn.Exec(ctx, "SAVEPOINT sp_1"); return err },
			func() error { return drain(conn.Query(ctx, shapeDefinitions, s.tenantID)) },
			func() error { return conn.QueryRow(ctx, shapePhone, w.phoneID, s.tenantID, w.e164).Scan(&w.phoneID) },
			func() error {
				if err := conn.QueryRow(ctx, shapeOwners, s.tenantID, w.phoneID, "").Scan(&phoneOwner, &extOwner); err != nil {
					return err
				}
				return owned(phoneOwner)
			},
			func() error { _, err := conn.Exec(ctx, shapeContact, w.contactArgs(s.tenantID)...); return err },
			func() error { _, err := conn.Exec(ctx, shapeOutbox, ids.New(), s.tenantID, w.body); return err },
			func() error { _, err := conn.Exec(ctx, "RELEASE SAVEPOINT sp_1"); return err },
			func() error { _, err := conn.Exec(ctx, shapeStore, s.tenantID, w.key, w.body); return err },
			func() error { _, err := conn.Exec(ctx, "COMMIT"); return err },
		}
		for _, step := range steps {
			if err := step(); err != nil {
				return err
			}
		}
		return nil
	})
}

func (s *shapes) pipelined(c *fiber.Ctx) error {
	return s.serve(c, func(ctx context.Context, conn *pgx.Conn, w *write) error {
		first := &pgx.Batch{}
		first.Queue("BEGIN")
		first.Queue("SELECT set_config('app.tenant_id', $1, true)", s.tenantID)
		first.Queue(shapeTimeout)
		first.Queue(shapeClaim, s.tenantID, w.key, w.sum[:], w.key)
		first.Queue("SAVEPOINT sp_1")
		first.Queue(shapeDefinitions, s.tenantID)
		if err := conn.SendBatch(ctx, first).Close(); err != nil {
			return err
		}
		var phoneOwner string
		if err := conn.QueryRow(ctx, shapePhoneAndOwner, w.phoneID, s.tenantID, w.e164).Scan(&w.phoneID, &phoneOwner); err != nil {
			return err
		}
		if err := owned(phoneOwner); err != nil {
			return err
		}
		last := &pgx.Batch{}
		last.Queue(shapeContact, w.contactArgs(s.tenantID)...)
		last.Queue(shapeOutbox, ids.New(), s.tenantID, w.body)
		last.Queue("RELEASE SAVEPOINT sp_1")
		last.Queue(shapeStore, s.tenantID, w.key, w.body)
		last.Queue("COMMIT")
		return conn.SendBatch(ctx, last).Close()
	})
}

func (w *write) contactArgs(tenantID string) []any {
	c := w.contact
	return []any{c.ID, tenantID, c.FirstName, c.LastName, w.phoneID, c.Email, c.CreatedAt}
}

// owned refuses a phone that a live contact already holds.
func owned(owner string) error {
	if owner != "" {
		return fmt.Errorf("phone held by %s: %w", owner, fiber.ErrUnprocessableEntity)
	}
	return nil
}

// drain reads and closes rows.
func drain(rows pgx.Rows, err error) error {
	if err != nil {
		return err
	}
	for rows.Next() {
	}
	rows.Close()
	return rows.Err()
}
