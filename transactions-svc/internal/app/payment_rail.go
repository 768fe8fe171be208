package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/sealer"
	"github.com/paylane/paylane/transactions-svc/internal/rail"
	"github.com/paylane/paylane/transactions-svc/internal/rail/striperail"
	"github.com/paylane/paylane/transactions-svc/internal/store"
	"github.com/paylane/paylane/transactions-svc/internal/verr"
)

// Rails reaches the tenants' payment providers: the Stripe client, the
// sealer of their secrets, and the public origin of the provider webhooks.
type Rails struct {
	Stripe     *striperail.Client
	Sealer     *sealer.Sealer
	PublicBase string
}

// WithRails enables the tenants' payment providers (without, every tenant
// is on the sandbox rail and PUT /payment-rail is unavailable).
func (a *App) WithRails(r *Rails) *App {
	a.rails = r
	return a
}

// PaymentRail is a tenant's rail as GET /payment-rail shows it: secrets
// never, the secret key's last four characters only.
type PaymentRail struct {
	Provider       string
	Mode           *string
	AccountID      *string
	PublishableKey *string
	SecretKeyLast4 *string
	WebhookURL     *string
	UpdatedAt      *time.Time
}

// RailInput is the body of PUT /payment-rail.
type RailInput struct {
	Provider             string
	SecretKey            string
	WebhookSecret        string
	ConnectWebhookSecret string
	PublishableKey       *string
}

// ErrRailsOff: this deployment has no provider configured (503).
var ErrRailsOff = apierr.NewSentinel("app: payment providers are not configured",
	apierr.New(http.StatusServiceUnavailable, apierr.CodeServiceUnavailable, "Payment providers are not configured on this deployment."))

// GetPaymentRail returns the tenant's current rail (sandbox without one).
func (a *App) GetPaymentRail(ctx context.Context, scope Scope) (PaymentRail, error) {
	var out PaymentRail
	err := a.store.Read(ctx, scope.TenantID, func(tx *store.Tx) error {
		r, err := tx.PaymentRail(ctx, "")
		if errors.Is(err, store.ErrNoRail) {
			out = PaymentRail{Provider: string(rail.Sandbox)}
			return nil
		}
		if err != nil {
			return err
		}
		out = a.railView(r)
		return nil
	})
	return out, err
}

func (a *App) railView(r store.PaymentRail) PaymentRail {
	updated := r.UpdatedAt
	v := PaymentRail{Provider: r.Provider, Mode: &r.Mode, AccountID: &r.AccountID, PublishableKey: r.PublishableKey,
		SecretKeyLast4: &r.SecretKeyLast4, UpdatedAt: &updated}
	if a.rails != nil {
		u := a.webhookURL(r)
		v.WebhookURL = &u
	}
	return v
}

// webhookURL is where the tenant registers Stripe's webhook for rail r.
func (a *App) webhookURL(r store.PaymentRail) string {
	return strings.TrimRight(a.rails.PublicBase, "/") + "/webhooks/rails/" + r.Provider + "/" + r.ID
}

// PutPaymentRail checks the key against the provider, then stores the rail
// with its secrets sealed. The same provider account keeps its rail (new
// keys, same webhook URL); another account retires the current rail and
// starts a new one (transactions created before keep the old one).
func (a *App) PutPaymentRail(ctx context.Context, scope Scope, in RailInput) (PaymentRail, error) {
	mode, err := checkRailInput(in)
	if err != nil {
		return PaymentRail{}, err
	}
	if a.rails == nil {
		return PaymentRail{}, ErrRailsOff
	}
	account, err := a.rails.Stripe.CheckKey(ctx, scope.TenantID, in.SecretKey)
	switch {
	case errors.Is(err, rail.ErrKeyRefused):
		return PaymentRail{}, verr.Field("secret_key", "Stripe refused this key.")
	case errors.Is(err, rail.ErrUnavailable):
		return PaymentRail{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	case err != nil:
		return PaymentRail{}, err
	}
	var out PaymentRail
	err = a.store.Write(ctx, scope.Tx, scope.TenantID, func(tx *store.Tx) error {
		now := a.Now()
		cur, err := tx.LockCurrentRail(ctx)
		switch {
		case errors.Is(err, store.ErrNoRail):
			cur = store.PaymentRail{}
		case err != nil:
			return err
		case cur.AccountID != account || cur.Mode != mode:
			if err := tx.RetireRail(ctx, cur.ID, now); err != nil {
				return err
			}
			cur = store.PaymentRail{}
		}
		isNew := cur.ID == ""
		if isNew {
			cur = store.PaymentRail{ID: ids.NewAt(now), Provider: string(rail.Stripe), AccountID: account, CreatedAt: now}
		}
		cur.Mode, cur.PublishableKey, cur.SecretKeyLast4, cur.UpdatedAt = mode, in.PublishableKey, last4(in.SecretKey), now
		if err := a.sealRail(scope.TenantID, &cur, in); err != nil {
			return err
		}
		if isNew {
			err = tx.InsertRail(ctx, cur)
		} else {
			err = tx.UpdateRail(ctx, cur)
		}
		out = a.railView(cur)
		return err
	})
	return out, err
}

// DeletePaymentRail puts the tenant back on the sandbox rail for new
// transactions. The retired rail keeps settling the transactions created
// under it.
func (a *App) DeletePaymentRail(ctx context.Context, scope Scope) error {
	return a.store.Write(ctx, scope.Tx, scope.TenantID, func(tx *store.Tx) error {
		cur, err := tx.LockCurrentRail(ctx)
		if errors.Is(err, store.ErrNoRail) {
			return nil
		}
		if err != nil {
			return err
		}
		return tx.RetireRail(ctx, cur.ID, a.Now())
	})
}

// Characters of Stripe's keys and of its webhook signing secrets.
var (
	keyChars    = regexp.MustCompile(`^[A-Za-z0-9_]+$`)
	secretChars = regexp.MustCompile(`^[A-Za-z0-9_+/=]+$`)
)

// checkRailInput validates a PUT body before the provider is asked, and
// returns the key's mode.
func checkRailInput(in RailInput) (string, error) {
	p := verr.Problems{}
	if in.Provider != string(rail.Stripe) {
		p.Add("provider", "The provider must be stripe.")
	}
	mode := striperail.Mode(in.SecretKey)
	if !keyChars.MatchString(in.SecretKey) {
		mode = "" // a key Stripe issues holds these characters only; others would not travel in a header
	}
	if mode == "" {
		p.Add("secret_key", "The secret key must be a Stripe secret or restricted key (sk_test_, sk_live_, rk_test_, rk_live_).")
	}
	if len(in.SecretKey) > 255 {
		p.Add("secret_key", "The secret key may not be longer than 255 characters.")
	}
	for field, v := range map[string]string{"webhook_secret": in.WebhookSecret, "connect_webhook_secret": in.ConnectWebhookSecret} {
		if (v != "" || field == "webhook_secret") && (!strings.HasPrefix(v, "whsec_") || len(v) > 255 || !secretChars.MatchString(v)) {
			p.Add(field, "The webhook secret must be the whsec_ signing secret Stripe shows for the endpoint.")
		}
	}
	if k := in.PublishableKey; k != nil && (!strings.HasPrefix(*k, "pk_") || len(*k) > 255 || !keyChars.MatchString(*k)) {
		p.Add("publishable_key", "The publishable key must start with pk_.")
	} else if k != nil && strings.SplitN(*k, "_", 3)[1] != mode && mode != "" {
		p.Add("publishable_key", "The publishable key must be of the same mode as the secret key.")
	}
	return mode, p.Err()
}

// sealRail seals the secrets of in onto r, bound to the tenant and rail.
func (a *App) sealRail(tenantID string, r *store.PaymentRail, in RailInput) error {
	var err error
	if r.SecretKeySealed, err = a.rails.Sealer.Seal([]byte(in.SecretKey), railAAD(tenantID, r.ID, "secret_key")); err != nil {
		return err
	}
	if r.WebhookSecretSealed, err = a.rails.Sealer.Seal([]byte(in.WebhookSecret), railAAD(tenantID, r.ID, "webhook_secret")); err != nil {
		return err
	}
	r.ConnectSecretSealed = nil
	if in.ConnectWebhookSecret != "" {
		r.ConnectSecretSealed, err = a.rails.Sealer.Seal([]byte(in.ConnectWebhookSecret), railAAD(tenantID, r.ID, "connect_webhook_secret"))
	}
	return err
}

// railSecrets opens the secret key and the webhook secrets of r.
func (a *App) railSecrets(tenantID string, r store.PaymentRail) (key string, webhookSecrets []string, err error) {
	k, err := a.rails.Sealer.Open(r.SecretKeySealed, railAAD(tenantID, r.ID, "secret_key"))
	if err != nil {
		return "", nil, fmt.Errorf("opening the rail's key: %w", err)
	}
	w, err := a.rails.Sealer.Open(r.WebhookSecretSealed, railAAD(tenantID, r.ID, "webhook_secret"))
	if err != nil {
		return "", nil, fmt.Errorf("opening the rail's webhook secret: %w", err)
	}
	secrets := []string{string(w)}
	if r.ConnectSecretSealed != nil {
		c, err := a.rails.Sealer.Open(r.ConnectSecretSealed, railAAD(tenantID, r.ID, "connect_webhook_secret"))
		if err != nil {
			return "", nil, fmt.Errorf("opening the rail's connect webhook secret: %w", err)
		}
		secrets = append(secrets, string(c))
	}
	return string(k), secrets, nil
}

// railAAD binds a sealed secret to its tenant, rail and field.
func railAAD(tenantID, railID, field string) []byte {
	return []byte(tenantID + "/" + railID + "/" + field)
}

// last4 is the last four characters of a key.
func last4(key string) string {
	if len(key) <= 4 {
		return key
	}
	return key[len(key)-4:]
}
