package contacts_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	contacts "github.com/paylane/paylane/contacts-svc"
	"github.com/paylane/paylane/contacts-svc/internal/testenv"
	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/testkit"
	"github.com/paylane/paylane/optin-svc/client/clienttest"
)

// optInReader creates a contact with phone and returns a function that
// reads its opt_in_status through the single read.
func optInReader(t *testing.T, svc testenv.Service, phone string) (id string, status func() string) {
	t.Helper()
	tok := svc.Token(t, tenantA, abilities...)
	code, body := call(t, "POST", svc.BaseURL()+"/api/v1/contacts", tok, `{"first_name":"Ada","phone":"`+phone+`"}`, nil)
	if code != 201 {
		t.Fatalf("create = %d %s", code, body)
	}
	var created struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &created); err != nil {
		t.Fatal(err)
	}
	return created.Data.ID, func() string {
		t.Helper()
		code, body := call(t, "GET", svc.BaseURL()+"/api/v1/contacts/"+created.Data.ID, tok, "", nil)
		var shown struct {
			Data struct {
				OptInStatus string `json:"opt_in_status"`
			} `json:"data"`
		}
		if code != 200 || json.Unmarshal(body, &shown) != nil {
			t.Fatalf("single read = %d %s", code, body)
		}
		return shown.Data.OptInStatus
	}
}

func TestSingleReadKeepsTheOptInAnswerUntilAnEventChangesIt(t *testing.T) {
	t.Parallel()
	brokers := testkit.Broker(t)
	optin := clienttest.Start(t)
	svc := testenv.StartWith(t, brokers, func(c *contacts.Config) {
		// A TTL beyond the wait below: only the event can refresh the answer.
		c.OptInURL, c.OptInCacheTTL, c.OptInCacheSize = optin.URL, time.Minute, 100
	})
	const phone = "+14155550142"
	id, status := optInReader(t, svc, phone)
	for range 3 {
		if got := status(); got != "none" {
			t.Fatalf("opt_in_status = %q, want none", got)
		}
	}
	if n := optin.Calls(tenantA, id); n != 1 {
		t.Fatalf("optin-svc asked %d times for three reads, want 1", n)
	}

	optin.Set(tenantA, id, clienttest.Standing{Status: "opted_out"})
	if got := status(); got != "none" {
		t.Fatalf("opt_in_status = %q before any event, want the cached none", got)
	}
	// The follower may still be finding the topic's end when the first
	// event goes out, so publish until the read changes: a redelivered
	// invalidation is harmless.
	deadline := time.Now().Add(30 * time.Second) // a bound on delivery, not a latency check
	for status() != "opted_out" {
		if time.Now().After(deadline) {
			t.Fatal("the suppression.created event never refreshed the contact's opt_in_status")
		}
		publishOptInEvent(t, brokers, events.TypeSuppressionCreated, events.Suppression{ID: "S1", PhoneLast4: phone[len(phone)-4:]})
		time.Sleep(100 * time.Millisecond)
	}
}

func TestSingleReadWithoutOptInCacheAsksEveryTime(t *testing.T) {
	t.Parallel()
	optin := clienttest.Start(t)
	svc := testenv.StartWith(t, nil, func(c *contacts.Config) { c.OptInURL, c.OptInCacheTTL = optin.URL, 0 })
	id, status := optInReader(t, svc, "+14155550143")
	status()
	optin.Set(tenantA, id, clienttest.Standing{Status: "opted_in"})
	if got := status(); got != "opted_in" || optin.Calls(tenantA, id) != 2 {
		t.Fatalf("second read = %q after %d calls, want opted_in after 2", got, optin.Calls(tenantA, id))
	}
}

// publishOptInEvent writes an event of tenantA to the optins topic as
// optin-svc's relay does.
func publishOptInEvent(t *testing.T, brokers []string, typ string, data any) {
	t.Helper()
	env, err := events.New(typ, tenantA, "", data)
	if err != nil {
		t.Fatal(err)
	}
	value, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	w := &kafka.Writer{Addr: kafka.TCP(brokers...), Topic: events.TopicOptins, RequiredAcks: kafka.RequireAll,
		BatchTimeout: time.Millisecond}
	defer w.Close()
	if err := w.WriteMessages(context.Background(), kafka.Message{Key: []byte(tenantA), Value: value}); err != nil {
		t.Fatalf("publishing %s: %v", typ, err)
	}
}

// TestSingleReadIsServiceUnavailableWhileOptInSvcIs: a single read needs
// optin-svc's answer; while optin-svc cannot give one (a 503, no answer)
// the read is 503 service_unavailable with Retry-After, which a client
// retries, never a 500.
func TestSingleReadIsServiceUnavailableWhileOptInSvcIs(t *testing.T) {
	t.Parallel()
	optin := clienttest.Start(t)
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close() // nothing listens there any more
	for _, tc := range []struct {
		name string
		url  string
		fail func()
	}{
		{"optin-svc answers 503", optin.URL, func() { optin.FailNext(1) }},
		{"optin-svc unreachable", downURL, func() {}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := testenv.StartWith(t, nil, func(c *contacts.Config) {
				c.OptInURL, c.OptInCacheTTL = tc.url, 0
			})
			tok := svc.Token(t, tenantA, abilities...)
			code, body := call(t, "POST", svc.BaseURL()+"/api/v1/contacts", tok, `{"first_name":"Ada","phone":"+14155550143"}`, nil)
			if code != 201 {
				t.Fatalf("create = %d %s", code, body)
			}
			var created struct {
				Data struct{ ID string } `json:"data"`
			}
			if err := json.Unmarshal(body, &created); err != nil {
				t.Fatal(err)
			}
			tc.fail()
			code, body = call(t, "GET", svc.BaseURL()+"/api/v1/contacts/"+created.Data.ID, tok, "", nil)
			var env struct {
				Error struct{ Code string } `json:"error"`
			}
			_ = json.Unmarshal(body, &env)
			if code != http.StatusServiceUnavailable || env.Error.Code != "service_unavailable" {
				t.Fatalf("single read while optin-svc cannot answer = %d %s, want 503 service_unavailable", code, body)
			}
		})
	}
}
