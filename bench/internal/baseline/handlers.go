package baseline

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/libs/ids"
)

// readSQL is contacts-svc's single read (store.contactByIDSQL, live only).
const readSQL = `SELECT c.id, c.tenant_id, c.external_id, c.first_name, c.last_name, p.e164, c.phone_id,
	c.email, c.custom_fields, c.created_at, c.updated_at, c.deleted_at
	FROM contacts c JOIN phones p ON p.id = c.phone_id
	WHERE c.tenant_id = $1 AND c.id = $2 AND c.deleted_at IS NULL`

// insertSQL is the baseline's single-row write.
const insertSQL = `INSERT INTO contacts (id, tenant_id, first_name, last_name, phone, email, created_at, updated_at)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`

type handlers struct {
	read, write *pgxpool.Pool
	tenantID    string
}

// contact is what both handlers answer, inside {"data": ...}.
type contact struct {
	ID           string          `json:"id"`
	TenantID     string          `json:"-"`
	ExternalID   *string         `json:"external_id"`
	FirstName    *string         `json:"first_name"`
	LastName     *string         `json:"last_name"`
	Phone        string          `json:"phone"`
	PhoneID      string          `json:"phone_id,omitempty"`
	Email        *string         `json:"email"`
	CustomFields json.RawMessage `json:"custom_fields"`
	CreatedAt    time.Time       `json:"created_at"`
	UpdatedAt    time.Time       `json:"updated_at"`
	DeletedAt    *time.Time      `json:"deleted_at"`
}

func (h *handlers) show(c *fiber.Ctx) error {
	var ct contact
	err := h.read.QueryRow(c.UserContext(), readSQL, h.tenantID, c.Params("id")).Scan(
		&ct.ID, &ct.TenantID, &ct.ExternalID, &ct.FirstName, &ct.LastName, &ct.Phone, &ct.PhoneID,
		&ct.Email, &ct.CustomFields, &ct.CreatedAt, &ct.UpdatedAt, &ct.DeletedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return c.SendStatus(fiber.StatusNotFound)
	}
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusOK).JSON(fiber.Map{"data": ct})
}

// input is the body of the baseline's POST.
type input struct {
	FirstName *string `json:"first_name"`
	LastName  *string `json:"last_name"`
	Phone     string  `json:"phone"`
	Email     *string `json:"email"`
}

func (h *handlers) create(c *fiber.Ctx) error {
	var in input
	if err := json.Unmarshal(c.Body(), &in); err != nil || in.Phone == "" {
		return c.SendStatus(fiber.StatusUnprocessableEntity)
	}
	now := time.Now().UTC()
	ct := contact{
		ID: ids.NewAt(now), FirstName: in.FirstName, LastName: in.LastName, Phone: in.Phone, Email: in.Email,
		CustomFields: json.RawMessage(`{}`), CreatedAt: now, UpdatedAt: now,
	}
	if _, err := h.write.Exec(c.UserContext(), insertSQL,
		ct.ID, h.tenantID, ct.FirstName, ct.LastName, ct.Phone, ct.Email, now); err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(fiber.Map{"data": ct})
}
