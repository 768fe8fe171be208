package httpx

import (
	"reflect"
	"strconv"
	"testing"
)

func BenchmarkCheckStrict(b *testing.B) {
	raw := []byte(`{"contact_id":"01JD6S8Q3X5V2N4M7K9P0R1T2W","amount":125000,"currency":"USD",` +
		`"description":"Invoice 2026-11 for consulting services","due_date":"2026-12-24",` +
		`"external_id":"inv-2026-11-0042","send_at":"2026-11-27T09:00:00Z","link_ttl_hours":72,` +
		`"custom_fields":{"po_number":"PO-7781","department":"Sales","priority":2,"tags":["a","b"]}}`)
	type target struct {
		ContactID    *string        `json:"contact_id"`
		Amount       *int64         `json:"amount"`
		Currency     *string        `json:"currency"`
		Description  *string        `json:"description"`
		DueDate      *string        `json:"due_date"`
		ExternalID   *string        `json:"external_id"`
		SendAt       *string        `json:"send_at"`
		LinkTTLHours *int           `json:"link_ttl_hours"`
		CustomFields map[string]any `json:"custom_fields"`
	}
	t := reflect.TypeFor[*target]()
	b.ReportAllocs()
	for b.Loop() {
		if _, msg, ok := checkStrict(raw, t); !ok {
			b.Fatal(msg)
		}
	}
}

type shadowInner struct {
	Contact *struct {
		ExternalID string `json:"external_id"`
	} `json:"contact"`
	Amount int `json:"amount"`
	Note   string
}

type shadowOuter struct {
	shadowInner
	Contact *struct {
		Phone string `json:"phone"`
	} `json:"contact"` // shadows shadowInner's contact
	Tagged string `json:"Note"` // shallower than shadowInner.Note: wins
}

// TestStrictFieldsFollowEncodingJSON: the field a key lands in is the one
// encoding/json picks, through the per-call lists and the field-by-field
// lookup used for large structs alike.
func TestStrictFieldsFollowEncodingJSON(t *testing.T) {
	t.Parallel()
	st := reflect.TypeFor[shadowOuter]()
	for _, key := range []string{"contact", "amount", "Note", "note", "external_id", "shadowInner"} {
		var s keyScanner
		got, ok := s.fieldOf(st, []byte(key))
		want, wantOK := fieldType(st, []byte(key))
		if ok != wantOK || got != want {
			t.Errorf("%s: fieldOf = %v %v, fieldType = %v %v", key, got, ok, want, wantOK)
		}
	}
	if ft, ok := fieldType(st, []byte("contact")); !ok || ft.Elem().Field(0).Name != "Phone" {
		t.Errorf("contact resolves to %v, want the outer struct's contact", ft)
	}
	if _, ok := fieldType(st, []byte("amount")); !ok {
		t.Error("promoted amount not found")
	}
	if ft, ok := fieldType(st, []byte("Note")); !ok || ft.Kind() != reflect.String {
		t.Error("Note not found")
	}
	for _, body := range []string{`{"contact":{"phone":"+1"}}`, `{"amount":1,"Note":"x"}`} {
		if _, msg, ok := checkStrict([]byte(body), reflect.TypeFor[*shadowOuter]()); !ok {
			t.Errorf("%s refused: %s", body, msg)
		}
	}
	if field, _, ok := checkStrict([]byte(`{"contact":{"external_id":"x"}}`), st); ok || field != "contact.external_id" {
		t.Errorf("the shadowed contact's field was accepted (field %q)", field)
	}
}

// TestStrictLargeStruct: a struct with more fields than a per-call list
// holds is looked up field by field, with the same answers.
func TestStrictLargeStruct(t *testing.T) {
	t.Parallel()
	fields := make([]reflect.StructField, 40)
	for i := range fields {
		name := "F" + strconv.Itoa(i)
		fields[i] = reflect.StructField{Name: name, Type: reflect.TypeFor[string](), Tag: reflect.StructTag(`json:"f` + strconv.Itoa(i) + `"`)}
	}
	st := reflect.StructOf(fields)
	if _, msg, ok := checkStrict([]byte(`{"f0":"a","f39":"b"}`), st); !ok {
		t.Errorf("refused: %s", msg)
	}
	if field, _, ok := checkStrict([]byte(`{"f0":"a","F39":"b"}`), st); ok || field != "F39" {
		t.Errorf("F39 accepted or misnamed (%q)", field)
	}
	if field, _, ok := checkStrict([]byte(`{"f39":"a","f39":"b"}`), st); ok || field != "f39" {
		t.Errorf("repeated f39 accepted or misnamed (%q)", field)
	}
}
