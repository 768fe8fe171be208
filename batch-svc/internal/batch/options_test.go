package batch

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	obj := json.RawMessage(`{}`)
	str := func(s string) *string { return &s }
	yes := true
	for _, tt := range []struct {
		name  string
		typ   Type
		env   Envelope
		field string // "" when valid
	}{
		{"one contact", Contacts, Envelope{Items: []json.RawMessage{obj}}, ""},
		{"missing items", Contacts, Envelope{}, "items"},
		{"10,000 contacts within bounds, items checked", Contacts, Envelope{Items: make([]json.RawMessage, 10000)}, "items.0"},
		{"5,001 receivables", Receivables, Envelope{Items: make([]json.RawMessage, 5001)}, "items"},
		{"array item", Payables, Envelope{Items: []json.RawMessage{json.RawMessage(`[]`)}}, "items.0"},
		{"campaign on contacts", Contacts, Envelope{Items: []json.RawMessage{obj}, Options: &OptionsInput{CampaignID: str("c")}}, "options.campaign_id"},
		{"ack on contacts", Contacts, Envelope{Items: []json.RawMessage{obj}, Options: &OptionsInput{AcknowledgeMessagingVolume: &yes}}, "options.acknowledge_messaging_volume"},
		{"campaign on payables", Payables, Envelope{Items: []json.RawMessage{obj}, Options: &OptionsInput{CampaignID: str("c")}}, ""},
		{"bad duplicate", Receivables, Envelope{Items: []json.RawMessage{obj}, Options: &OptionsInput{OnDuplicate: str("merge")}}, "options.on_duplicate"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Validate(tt.typ, tt.env)
			var ve *ValidationError
			switch {
			case tt.field == "" && err != nil:
				t.Errorf("err = %v, want none", err)
			case tt.field != "" && (!errors.As(err, &ve) || ve.Fields[tt.field] == nil):
				t.Errorf("err = %v, want a problem with %s", err, tt.field)
			}
		})
	}
}

func TestEffectiveOptions(t *testing.T) {
	t.Parallel()
	s, err := Validate(Receivables, Envelope{Items: []json.RawMessage{json.RawMessage(`{}`)}})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(s.Options)
	want := `{"on_duplicate":"update","suppress_webhooks":true,"suppress_activity_log":true,"auto_assign_campaign":false,"acknowledge_messaging_volume":false}`
	if string(got) != want {
		t.Errorf("receivables options = %s, want %s", got, want)
	}
	s, _ = Validate(Contacts, Envelope{Items: []json.RawMessage{json.RawMessage(`{}`)}})
	if got, _ := json.Marshal(s.Options); strings.Contains(string(got), "campaign") {
		t.Errorf("contacts options = %s", got)
	}
}

func TestCheckMessagingVolume(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	items := make([]json.RawMessage, 2500)
	for _, tt := range []struct {
		steps int
		ack   *bool
		ok    bool
	}{{4, &no, true}, {5, &no, false}, {5, &yes, true}, {0, &no, true}} {
		err := CheckMessagingVolume(Submission{Items: items, Options: Options{AcknowledgeMessagingVolume: tt.ack}}, tt.steps)
		if (err == nil) != tt.ok {
			t.Errorf("2500 items × %d steps, ack %v: err = %v", tt.steps, *tt.ack, err)
		}
	}
}

func TestChunks(t *testing.T) {
	t.Parallel()
	chunks := Chunks(make([]json.RawMessage, 1001))
	if len(chunks) != 3 || chunks[1].FirstRowIndex != 500 || chunks[2].Index != 2 || len(chunks[2].Items) != 1 {
		t.Errorf("chunks = %+v", chunks)
	}
}
