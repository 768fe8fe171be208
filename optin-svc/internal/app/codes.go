package app

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/optin-svc/internal/optin"
	"github.com/paylane/paylane/optin-svc/internal/store"
)

// maxCodeName bounds an opt-in code's name.
const maxCodeName = 191

// codeAttempts bounds the draws of a public code (a collision is ~1e-14).
const codeAttempts = 3

// CodeInput is the body of the operator plane's code create.
type CodeInput struct {
	Name string
	// IsDefault makes the code the tenant's default; when nil, the first
	// code of a tenant becomes its default.
	IsDefault *bool
	// DoubleOptIn (default false) leaves consents pending until the
	// contact replies YES to a confirmation SMS.
	DoubleOptIn *bool
	// IsLive (default true) lets the landing page take consents.
	IsLive *bool
}

// CreateCode creates an opt-in code of a tenant that identity-svc knows,
// in the request's write transaction wtx (the zero Tx for a write of its
// own).
func (a *App) CreateCode(ctx context.Context, wtx idempotency.Tx, tenantID string, in CodeInput) (optin.Code, error) {
	in.Name = strings.TrimSpace(in.Name)
	switch {
	case in.Name == "":
		return optin.Code{}, invalid("name", "The name field is required.")
	case utf8.RuneCountInString(in.Name) > maxCodeName:
		return optin.Code{}, invalid("name", "The name may not be greater than 191 characters.")
	}
	if _, err := a.tenant(ctx, tenantID); err != nil {
		return optin.Code{}, err
	}
	now := a.timestamp()
	c := optin.Code{ID: ids.NewAt(now), Name: in.Name, IsLive: orDefault(in.IsLive, true),
		DoubleOptIn: orDefault(in.DoubleOptIn, false), CreatedAt: now, UpdatedAt: now}
	var err error
	for range codeAttempts {
		c.Code = optin.NewPublicCode()
		err = a.store.Write(ctx, wtx, tenantID, func(tx *store.Tx) error {
			c.IsDefault = orDefault(in.IsDefault, false)
			if in.IsDefault == nil {
				has, err := tx.HasDefaultCode(ctx)
				if err != nil {
					return err
				}
				c.IsDefault = !has
			}
			return tx.InsertCode(ctx, c)
		})
		// A failed insert spoils a request's transaction: draw again only
		// in a transaction of its own.
		if !errors.Is(err, optin.ErrDuplicateCode) || wtx.TenantID() != "" {
			break
		}
	}
	c.TenantID = tenantID
	return c, err
}

// GetCode returns a code of the tenant.
func (a *App) GetCode(ctx context.Context, scope Scope, id string) (optin.Code, error) {
	if !ids.Valid(id) {
		return optin.Code{}, optin.ErrNotFound
	}
	var c optin.Code
	err := a.store.Read(ctx, scope.TenantID, func(tx *store.Tx) error {
		var err error
		c, err = tx.Code(ctx, id)
		return err
	})
	return c, err
}

// ListCodes returns one page of the tenant's codes, the default first, then
// newest first; live filters on is_live when not nil.
func (a *App) ListCodes(ctx context.Context, scope Scope, live *bool, page Page) ([]optin.Code, int, error) {
	var (
		list  []optin.Code
		total int
	)
	err := a.store.Read(ctx, scope.TenantID, func(tx *store.Tx) error {
		var err error
		list, total, err = tx.ListCodes(ctx, live, page.Limit, page.Offset)
		return err
	})
	return list, total, err
}

// CodeURL is the public landing page URL of a code, the one its QR code
// encodes.
func (a *App) CodeURL(c optin.Code) string {
	return a.sending.PublicBaseURL + "/l/o/" + c.Code
}

func orDefault(b *bool, def bool) bool {
	if b == nil {
		return def
	}
	return *b
}

// CodeConsentCounts returns, per opt-in code of the tenant, how many of its
// consents are confirmed, pending and revoked; a code without consents is
// absent.
func (a *App) CodeConsentCounts(ctx context.Context, scope Scope) (map[string]store.ConsentCounts, error) {
	var out map[string]store.ConsentCounts
	err := a.store.Read(ctx, scope.TenantID, func(tx *store.Tx) error {
		var err error
		out, err = tx.ConsentCountsByCode(ctx)
		return err
	})
	return out, err
}
