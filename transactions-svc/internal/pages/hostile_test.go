package pages_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestFormsWithTextThatIsNotText: a hosted form value holding NUL or bytes
// that are not UTF-8 re-renders the form with 422 naming the field; the
// item does not move and nothing answers 500.
func TestFormsWithTextThatIsNotText(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, tt := range []struct{ field, value string }{
		{"cardholder_name", "Ada\x00Lovelace"},
		{"cardholder_name", "Ada \xff"},
		{"card_number", "4242\x00424242424242"},
		{"exp_month", "1\xff"},
	} {
		it := f.create(t, "receivables")
		link := f.link(t, it)
		form := card("4242424242424242")
		form.Set(tt.field, tt.value)
		form.Set("_csrf", f.open(t, link))
		a := f.post(t, link, form)
		expectPage(t, a, http.StatusUnprocessableEntity, `aria-describedby="`+tt.field+`-error"`)
		if got := f.show(t, "receivables", it.ID); got.Status != "pending" {
			t.Errorf("%s %q moved it to %s", tt.field, tt.value, got.Status)
		}
	}
	for _, tt := range []struct{ field, value string }{
		{"account_holder_name", "Ada\x00"},
		{"account_holder_name", "\xffAda"},
		{"destination_type", "debit_card\x00"},
	} {
		it := f.create(t, "payables")
		link := f.link(t, it)
		form := debit(debitCard("4321"))
		form.Set(tt.field, tt.value)
		form.Set("_csrf", f.open(t, link))
		a := f.post(t, link, form)
		if a.status != http.StatusUnprocessableEntity || !strings.Contains(a.body, "<form") {
			t.Errorf("%s %q: %d, want the form again with 422:\n%s", tt.field, tt.value, a.status, a.body)
		}
		if got := f.show(t, "payables", it.ID); got.Status != "pending" {
			t.Errorf("%s %q moved it to %s", tt.field, tt.value, got.Status)
		}
	}
}
