package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/paylane/paylane/identity-svc/internal/store"
	"github.com/paylane/paylane/identity-svc/internal/tenant"
	"github.com/paylane/paylane/identity-svc/internal/testenv"
	"github.com/paylane/paylane/libs/ids"
)

func TestTenantBySMSNumber(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := store.New(testenv.NewDB(t).Pool)
	withNumber := func(name, number string, at time.Time) tenant.Tenant {
		ten := tenant.New(ids.NewAt(at), at)
		ten.Name, ten.SMSNumber = name, number
		created, err := s.CreateTenant(ctx, ten)
		if err != nil {
			t.Fatal(err)
		}
		return created
	}
	acme := withNumber("Acme", "+15550001111", now)
	globex := withNumber("Globex", "+447700900123", now.Add(time.Second))
	withNumber("No number", "", now.Add(2*time.Second))

	tests := []struct {
		number string
		want   string // tenant id, "" for ErrNotFound
	}{
		{"+15550001111", acme.ID},
		{"+447700900123", globex.ID},
		{"+15550009999", ""},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.number, func(t *testing.T) {
			got, err := s.TenantBySMSNumber(ctx, tt.number)
			if tt.want == "" {
				if !errors.Is(err, tenant.ErrNotFound) {
					t.Errorf("TenantBySMSNumber(%q) = %+v, %v; want ErrNotFound", tt.number, got, err)
				}
				return
			}
			if err != nil || got.ID != tt.want || got.SMSNumber != tt.number {
				t.Errorf("TenantBySMSNumber(%q) = %+v, %v; want tenant %s", tt.number, got, err, tt.want)
			}
		})
	}
}
