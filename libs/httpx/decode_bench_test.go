package httpx_test

import (
	"testing"

	"github.com/paylane/paylane/libs/httpx"
)

// BenchmarkDecode reads a receivable-create-sized body, the write path's
// common case (no \u0000 escape), and one that holds escapes but no NUL.
func BenchmarkDecode(b *testing.B) {
	bodies := map[string]string{
		"receivable": `{"contact_id":"01JD6S8Q3X5V2N4M7K9P0R1T2W","amount":125000,"currency":"USD",` +
			`"description":"Invoice 2026-11 for consulting services","due_date":"2026-12-24",` +
			`"external_id":"inv-2026-11-0042","send_at":"2026-11-27T09:00:00Z","link_ttl_hours":72,` +
			`"custom_fields":{"po_number":"PO-7781","department":"Sales","priority":2,"tags":["a","b"]}}`,
		"with escapes": `{"name":"Caf\u00e9 \"Ada\"","amount":5,"contact":{"phone":"+15005550006"},` +
			`"steps":[{"message":"Hi {{first_name}}\n"},{"message":"Pay {{link}}"}],"custom_fields":{"note":"x\ty"}}`,
	}
	for name, body := range bodies {
		raw := []byte(body)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var dst benchTarget
				if err := httpx.DecodeBytes(raw, &dst); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

type benchTarget struct {
	ContactID    *string        `json:"contact_id"`
	Amount       *int64         `json:"amount"`
	Currency     *string        `json:"currency"`
	Description  *string        `json:"description"`
	DueDate      *string        `json:"due_date"`
	ExternalID   *string        `json:"external_id"`
	SendAt       *string        `json:"send_at"`
	LinkTTLHours *int           `json:"link_ttl_hours"`
	CustomFields map[string]any `json:"custom_fields"`
	Name         string         `json:"name"`
	Contact      *struct {
		Phone string `json:"phone"`
	} `json:"contact"`
	Steps []struct {
		Message string `json:"message"`
	} `json:"steps"`
}
