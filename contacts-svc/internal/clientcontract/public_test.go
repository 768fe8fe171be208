package clientcontract_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/paylane/paylane/contacts-svc/client"
	"github.com/paylane/paylane/contacts-svc/client/clienttest"
	"github.com/paylane/paylane/contacts-svc/internal/testenv"
	"github.com/paylane/paylane/libs/testkit"
)

// TestPublicReadsAgainstTheServiceAndItsFake runs the public reads the
// dashboard makes (List, Show) against contacts-svc and its fake.
func TestPublicReadsAgainstTheServiceAndItsFake(t *testing.T) {
	t.Parallel()
	t.Run("service", func(t *testing.T) {
		t.Parallel()
		svc := testenv.Start(t, nil)
		publicCases(t, backend{svc.BaseURL(), func(tenant string) string {
			return svc.Token(t, tenant, "api:view-any-contact", "api:view-contact")
		}})
	})
	t.Run("fake", func(t *testing.T) {
		t.Parallel()
		publicCases(t, backend{clienttest.New(t).URL, testkit.TenantToken})
	})
}

func publicCases(t *testing.T, b backend) {
	c := client.New(b.url, nil)
	ctx := context.Background()
	tok := b.token(tenantA)
	var made []*client.Contact
	for i, in := range []client.ContactInput{
		{ExternalID: "crm-1", FirstName: "Ada", LastName: "Lovelace", Phone: "+14155550100", Email: "ada@example.com"},
		{ExternalID: "crm-2", FirstName: "Grace", LastName: "Hopper", Phone: "+14155550101"},
		{FirstName: "Joan", Phone: "+14155550102"},
	} {
		ct, _, err := c.FindOrCreate(ctx, tok, in, "")
		if err != nil {
			t.Fatalf("FindOrCreate %d: %v", i, err)
		}
		made = append(made, ct)
	}

	all, err := c.List(ctx, tok, client.ListQuery{})
	if err != nil || all.Meta.Total != 3 || len(all.Data) != 3 || all.Meta.CurrentPage != 1 || all.Meta.PerPage != 25 {
		t.Fatalf("List = %+v, %v", all, err)
	}
	if all.Data[0].ID != made[2].ID || all.Data[2].ID != made[0].ID {
		t.Errorf("List order = %s, %s, %s; want newest first", all.Data[0].ID, all.Data[1].ID, all.Data[2].ID)
	}
	paged, err := c.List(ctx, tok, client.ListQuery{Page: 2, PerPage: 2})
	if err != nil || len(paged.Data) != 1 || paged.Data[0].ID != made[0].ID || paged.Meta.LastPage != 2 || paged.Meta.Total != 3 {
		t.Errorf("List page 2 of 2 = %+v, %v", paged, err)
	}
	byPhone, err := c.List(ctx, tok, client.ListQuery{Phone: "(415) 555-0101"})
	if err != nil || len(byPhone.Data) != 1 || byPhone.Data[0].ID != made[1].ID {
		t.Errorf("List by phone = %+v, %v", byPhone, err)
	}
	byExternal, err := c.List(ctx, tok, client.ListQuery{ExternalID: "crm-1"})
	if err != nil || len(byExternal.Data) != 1 || byExternal.Data[0].ID != made[0].ID || *byExternal.Data[0].Email != "ada@example.com" {
		t.Errorf("List by external id = %+v, %v", byExternal, err)
	}
	_, err = c.List(ctx, tok, client.ListQuery{Phone: "not a number"})
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || apiErr.Status != http.StatusUnprocessableEntity || len(apiErr.Fields()["phone"]) == 0 {
		t.Errorf("List with a bad phone: err = %v", err)
	}
	other, err := c.List(ctx, b.token(tenantB), client.ListQuery{})
	if err != nil || other.Meta.Total != 0 || other.Data == nil {
		t.Errorf("List of another tenant = %+v, %v", other, err)
	}

	got, err := c.Show(ctx, tok, made[0].ID, false)
	if err != nil || got.ID != made[0].ID || got.Phone != "+14155550100" || got.OptInStatus != "none" {
		t.Errorf("Show = %+v, %v", got, err)
	}
	for _, tt := range []struct{ token, id string }{
		{tok, "01HZX3K5Q8V9W2Y4Z6A7B8C9DE"},
		{tok, "not-a-ulid"},
		{b.token(tenantB), made[0].ID},
	} {
		if _, err := c.Show(ctx, tt.token, tt.id, false); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("Show(%s) err = %v, want ErrNotFound", tt.id, err)
		}
	}
}
