package clientcontract_test

import (
	"testing"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/transactions-svc/client"
)

func TestCount(t *testing.T) {
	t.Parallel()
	env, c, ctx, tenant, token, contact := newTenant(t, "c1")
	for range 2 {
		if _, err := c.Prepare(ctx, token, client.DraftInput{Direction: "receivable", ContactID: contact.ID, Amount: 100}, ""); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, token, direction, status string
		want, wantStatus               int
	}{
		{"drafts", token, "receivable", "draft", 2, 0},
		{"all", token, "receivable", "", 2, 0},
		{"none paid", token, "receivable", "paid", 0, 0},
		{"no payables", token, "payable", "draft", 0, 0},
		{"another tenant", env.Token(t, ids.New()), "receivable", "draft", 0, 0},
		{"without view-any", env.Token(t, tenant, "api:view-receivable"), "receivable", "draft", 0, 403},
		{"unknown status", token, "receivable", "lost", 0, 422},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := c.Count(ctx, tc.token, tc.direction, tc.status)
			if tc.wantStatus != 0 {
				if client.StatusOf(err) != tc.wantStatus {
					t.Fatalf("Count = %d, %v; want status %d", got, err, tc.wantStatus)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Count = %d, %v; want %d", got, err, tc.want)
			}
		})
	}
}
