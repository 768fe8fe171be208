package sms

import (
	"context"

	"github.com/paylane/paylane/libs/ids"
)

// Sink is the development provider: it sends nothing. The message stays in
// optin-svc's database, where the operator plane reads it back
// (GET /admin/v1/tenants/{tenant}/messages), and counts as delivered.
type Sink struct{}

// Name implements Provider.
func (Sink) Name() string { return "sink" }

// Send implements Provider: accepted and delivered at once.
func (Sink) Send(context.Context, Outgoing) (Result, error) {
	return Result{ProviderMessageID: "SK" + ids.New(), Delivered: true}, nil
}
