package peers

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/testkit"
	optinclient "github.com/paylane/paylane/optin-svc/client"
	"github.com/paylane/paylane/optin-svc/client/clienttest"
)

const (
	tenantA = "01HZX3K5Q8V9W2Y4Z6A7B8C9DA"
	tenantB = "01HZX3K5Q8V9W2Y4Z6A7B8C9DB"
	ada     = "01HZX3K5Q8V9W2Y4Z6A7B8C9E1"
	bob     = "01HZX3K5Q8V9W2Y4Z6A7B8C9E2"
	cy      = "01HZX3K5Q8V9W2Y4Z6A7B8C9E3"
	adaNo   = "+14155550101"
	bobNo   = "+14155550102"
	cyNo    = "+14155550103"
)

// newCache returns a cache in front of a Remote calling srv.
func newCache(srv *clienttest.Server, ttl time.Duration, size int) *Cache {
	return NewCache(NewRemote(optinclient.New(srv.URL, nil)), ttl, size)
}

// read asks c for a contact of tenant, as a request of that tenant does
// (the stand-in takes the token for the tenant).
func read(t *testing.T, c *Cache, tenant, id, phone string) contact.OptIn {
	t.Helper()
	got, err := c.OptIn(authz.WithToken(context.Background(), tenant), tenant, contact.Contact{ID: id, Fields: contact.Fields{Phone: phone}})
	if err != nil {
		t.Fatalf("OptIn(%s, %s): %v", tenant, id, err)
	}
	return got
}

func optedIn(consentID string) clienttest.Standing {
	return clienttest.Standing{Status: contact.OptInOptedIn, Consents: []clienttest.Consent{{ID: consentID, Status: "confirmed"}}}
}

func TestCacheAnswersTheSecondReadItself(t *testing.T) {
	t.Parallel()
	srv := clienttest.Start(t)
	srv.Set(tenantA, ada, optedIn("K1"))
	c := newCache(srv, time.Minute, 100)

	first := read(t, c, tenantA, ada, adaNo)
	first.Consents[0].Status = "scribbled on by the caller"
	second := read(t, c, tenantA, ada, adaNo)
	if n := srv.Calls(tenantA, ada); n != 1 {
		t.Fatalf("optin-svc called %d times for two reads, want 1", n)
	}
	if second.Status != contact.OptInOptedIn || len(second.Consents) != 1 || second.Consents[0].Status != "confirmed" {
		t.Fatalf("second read = %+v, want the cached opted_in with its confirmed consent", second)
	}
	// Another number of the same contact is another answer.
	read(t, c, tenantA, ada, bobNo)
	if n := srv.Calls(tenantA, ada); n != 2 {
		t.Fatalf("optin-svc called %d times after a read with another number, want 2", n)
	}
}

func TestCacheKeepsTenantsApart(t *testing.T) {
	t.Parallel()
	srv := clienttest.Start(t)
	srv.Set(tenantA, ada, optedIn("K1"))
	srv.Set(tenantB, ada, clienttest.Standing{Status: contact.OptInPending,
		Consents: []clienttest.Consent{{ID: "K2", Status: "pending"}}})
	c := newCache(srv, time.Minute, 100)

	for range 2 {
		if got := read(t, c, tenantA, ada, adaNo); got.Status != contact.OptInOptedIn || got.Consents[0].ID != "K1" {
			t.Fatalf("tenant A reads %+v, want its own opted_in", got)
		}
		if got := read(t, c, tenantB, ada, adaNo); got.Status != contact.OptInPending || got.Consents[0].ID != "K2" {
			t.Fatalf("tenant B reads %+v, want its own pending", got)
		}
	}
	if a, b := srv.Calls(tenantA, ada), srv.Calls(tenantB, ada); a != 1 || b != 1 {
		t.Fatalf("optin-svc called %d times for A and %d for B, want one each", a, b)
	}
	// An event of tenant A evicts nothing of tenant B's.
	invalidate(t, c, events.TypeSuppressionCreated, tenantA, events.Suppression{ID: "S1", PhoneLast4: adaNo[len(adaNo)-4:]})
	read(t, c, tenantA, ada, adaNo)
	read(t, c, tenantB, ada, adaNo)
	if a, b := srv.Calls(tenantA, ada), srv.Calls(tenantB, ada); a != 2 || b != 1 {
		t.Fatalf("after tenant A's event: %d calls for A, %d for B; want 2 and 1", a, b)
	}
}

func TestCacheKeepsNoErrors(t *testing.T) {
	t.Parallel()
	srv := clienttest.Start(t)
	srv.Set(tenantA, ada, optedIn("K1"))
	c := newCache(srv, time.Minute, 100)
	srv.FailNext(1)
	_, err := c.OptIn(authz.WithToken(context.Background(), tenantA), tenantA, contact.Contact{ID: ada, Fields: contact.Fields{Phone: adaNo}})
	var e *optinclient.Error
	if !errors.As(err, &e) || e.Status != 503 {
		t.Fatalf("first read: %v, want optin-svc's 503", err)
	}
	if got := read(t, c, tenantA, ada, adaNo); got.Status != contact.OptInOptedIn {
		t.Fatalf("read after the failure = %+v, want optin-svc's answer", got)
	}
	read(t, c, tenantA, ada, adaNo)
	if n := srv.Calls(tenantA, ada); n != 2 {
		t.Fatalf("optin-svc called %d times, want 2 (the failure, then one answer kept)", n)
	}
	// Without a token nothing is asked and nothing kept.
	if _, err := c.OptIn(context.Background(), tenantA, contact.Contact{ID: bob, Fields: contact.Fields{Phone: bobNo}}); !errors.Is(err, ErrNoToken) {
		t.Fatalf("read without a token: %v, want ErrNoToken", err)
	}
	if c.Len() != 1 {
		t.Fatalf("cache holds %d answers, want 1", c.Len())
	}
}

func TestCacheExpiresAnswersAfterTTL(t *testing.T) {
	t.Parallel()
	srv := clienttest.Start(t)
	c := newCache(srv, 2*time.Second, 100)
	now := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	c.now = func() time.Time { return now }

	read(t, c, tenantA, ada, adaNo)
	srv.Set(tenantA, ada, clienttest.Standing{Status: contact.OptInPending,
		Consents: []clienttest.Consent{{ID: "K1", Status: "pending"}}}) // no event announces this
	now = now.Add(2*time.Second - time.Nanosecond)
	if got := read(t, c, tenantA, ada, adaNo); got.Status != contact.OptInNone {
		t.Fatalf("read within the TTL = %s, want the cached none", got.Status)
	}
	now = now.Add(time.Nanosecond)
	if got := read(t, c, tenantA, ada, adaNo); got.Status != contact.OptInPending {
		t.Fatalf("read at the TTL = %s, want optin-svc's pending", got.Status)
	}
	if n := srv.Calls(tenantA, ada); n != 2 {
		t.Fatalf("optin-svc called %d times, want 2", n)
	}
}

func TestCacheDropsTheLeastRecentlyReadBeyondItsSize(t *testing.T) {
	t.Parallel()
	srv := clienttest.Start(t)
	c := newCache(srv, time.Minute, 2)
	read(t, c, tenantA, ada, adaNo)
	read(t, c, tenantA, bob, bobNo)
	read(t, c, tenantA, ada, adaNo) // ada is now the most recently read
	read(t, c, tenantA, cy, cyNo)   // bob goes
	if c.Len() != 2 {
		t.Fatalf("cache holds %d answers, want 2", c.Len())
	}
	read(t, c, tenantA, ada, adaNo)
	read(t, c, tenantA, bob, bobNo)
	if a, b := srv.Calls(tenantA, ada), srv.Calls(tenantA, bob); a != 1 || b != 2 {
		t.Fatalf("calls: ada %d, bob %d; want ada kept (1) and bob dropped (2)", a, b)
	}
}

// invalidate hands c an event as the follower does.
func invalidate(t *testing.T, c *Cache, typ, tenant string, data any) {
	t.Helper()
	env, err := events.New(typ, tenant, "", data)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Invalidate(context.Background(), env); err != nil {
		t.Fatalf("Invalidate: %v", err)
	}
}

func TestInvalidateEvictsWhatTheEventChanges(t *testing.T) {
	t.Parallel()
	last4 := func(e164 string) string { return e164[len(e164)-4:] }
	tests := []struct {
		name    string
		typ     string
		data    any
		evicted []string // of ada, bob, cy (tenant A)
	}{
		{"opt-in confirmed: its contact", events.TypeOptInConfirmed, events.OptIn{ID: "K9", ContactID: ada}, []string{ada}},
		{"consent requested: its contact", events.TypeConsentRequested, events.OptIn{ID: "KP", ContactID: cy}, []string{cy}},
		{"opt-in revoked: its contact and answers listing it", events.TypeOptInRevoked, events.OptIn{ID: "KB", ContactID: ada}, []string{ada, bob}},
		{"suppression created: the number", events.TypeSuppressionCreated, events.Suppression{ID: "S1", PhoneLast4: last4(cyNo)}, []string{cy}},
		{"suppression deleted: the number", events.TypeSuppressionDeleted, events.Suppression{ID: "S1", PhoneLast4: last4(bobNo)}, []string{bob}},
		{"suppression without digits: the tenant", events.TypeSuppressionCreated, events.Suppression{ID: "S1"}, []string{ada, bob, cy}},
		{"unreadable opt-in: the tenant", events.TypeOptInConfirmed, "not an object", []string{ada, bob, cy}},
		{"another type: nothing", "opt_in_code.created", events.OptIn{ID: "K9", ContactID: ada}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := clienttest.Start(t)
			// bob's answer lists consent KB, given by ada's number before
			// bob took it over.
			srv.Set(tenantA, bob, clienttest.Standing{Status: contact.OptInOptedIn, Consents: []clienttest.Consent{{ID: "KB", Status: "confirmed"}}})
			c := newCache(srv, time.Minute, 100)
			people := map[string]string{ada: adaNo, bob: bobNo, cy: cyNo}
			for id, no := range people {
				read(t, c, tenantA, id, no)
				read(t, c, tenantB, id, no)
			}
			invalidate(t, c, tt.typ, tenantA, tt.data)
			for id, no := range people {
				read(t, c, tenantA, id, no)
				read(t, c, tenantB, id, no)
				want := 1
				for _, e := range tt.evicted {
					if e == id {
						want = 2
					}
				}
				if n := srv.Calls(tenantA, id); n != want {
					t.Errorf("contact %s of tenant A: %d calls, want %d", id, n, want)
				}
				if n := srv.Calls(tenantB, id); n != 1 {
					t.Errorf("contact %s of tenant B: %d calls, want 1", id, n)
				}
			}
		})
	}
}

func TestAnswerFetchedAcrossAnInvalidationIsNotKept(t *testing.T) {
	t.Parallel()
	srv := clienttest.Start(t)
	c := newCache(srv, time.Minute, 100)
	held, release := srv.HoldNext()
	defer release()
	var (
		wg    sync.WaitGroup
		stale contact.OptIn
		err   error
	)
	wg.Go(func() {
		stale, err = c.OptIn(authz.WithToken(context.Background(), tenantA), tenantA, contact.Contact{ID: ada, Fields: contact.Fields{Phone: adaNo}})
	})
	<-held // optin-svc has read "none" and has not answered yet
	srv.Set(tenantA, ada, optedIn("K1"))
	invalidate(t, c, events.TypeOptInConfirmed, tenantA, events.OptIn{ID: "K1", ContactID: ada})
	release()
	wg.Wait()
	if err != nil || stale.Status != contact.OptInNone {
		t.Fatalf("held read = %s, %v; want the none optin-svc read before the change", stale.Status, err)
	}
	if got := read(t, c, tenantA, ada, adaNo); got.Status != contact.OptInOptedIn {
		t.Fatalf("next read = %s, want opted_in (the held answer must not be kept)", got.Status)
	}
}

// publish writes an event to the optins topic as optin-svc's relay does.
func publish(t *testing.T, brokers []string, typ, tenant string, data any) {
	t.Helper()
	env, err := events.New(typ, tenant, "", data)
	if err != nil {
		t.Fatal(err)
	}
	value, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	w := &kafka.Writer{Addr: kafka.TCP(brokers...), Topic: events.TopicOptins, Balancer: &kafka.Murmur2Balancer{},
		RequiredAcks: kafka.RequireAll, BatchTimeout: time.Millisecond}
	defer w.Close()
	if err := w.WriteMessages(context.Background(), kafka.Message{Key: []byte(tenant), Value: value}); err != nil {
		t.Fatalf("publishing %s: %v", typ, err)
	}
}

func TestOptInEventsOnTheBrokerEvictAnswers(t *testing.T) {
	t.Parallel()
	brokers := testkit.Broker(t)
	srv := clienttest.Start(t)
	c := newCache(srv, time.Hour, 100) // only an event can explain a fresh answer
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan struct{}), make(chan error, 1)
	go func() {
		done <- events.Follow(ctx, brokers, []string{events.TopicOptins}, nil, func() { close(ready) }, c.Invalidate)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Follow: %v", err)
		}
	})
	select {
	case <-ready:
	case <-time.After(30 * time.Second): // a bound on reaching the broker, not a latency check
		t.Fatal("the follower never started")
	}

	last4 := adaNo[len(adaNo)-4:]
	steps := []struct {
		typ  string
		data any
		then clienttest.Standing
	}{
		{events.TypeConsentRequested, events.OptIn{ID: "K1", ContactID: ada, Status: "pending"},
			clienttest.Standing{Status: contact.OptInPending, Consents: []clienttest.Consent{{ID: "K1", Status: "pending"}}}},
		{events.TypeOptInConfirmed, events.OptIn{ID: "K1", ContactID: ada, Status: "confirmed"}, optedIn("K1")},
		{events.TypeSuppressionCreated, events.Suppression{ID: "S1", PhoneLast4: last4},
			clienttest.Standing{Status: contact.OptInOptedOut, Consents: []clienttest.Consent{{ID: "K1", Status: "confirmed"}}}},
		{events.TypeSuppressionDeleted, events.Suppression{ID: "S1", PhoneLast4: last4}, optedIn("K1")},
		{events.TypeOptInRevoked, events.OptIn{ID: "K1", ContactID: ada, Status: "revoked"},
			clienttest.Standing{Status: contact.OptInOptedOut, Consents: []clienttest.Consent{{ID: "K1", Status: "revoked"}}}},
	}
	read(t, c, tenantA, ada, adaNo)
	for i, s := range steps { // each changes the status the step before left
		srv.Set(tenantA, ada, s.then)
		if got := read(t, c, tenantA, ada, adaNo); got.Status == s.then.Status {
			t.Fatalf("%s: the change showed before its event", s.typ)
		}
		publish(t, brokers, s.typ, tenantA, s.data)
		deadline := time.Now().Add(30 * time.Second) // a bound on delivery, not a latency check
		for got := read(t, c, tenantA, ada, adaNo); got.Status != s.then.Status; got = read(t, c, tenantA, ada, adaNo) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: still reading %s, want %s", s.typ, got.Status, s.then.Status)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if n := srv.Calls(tenantA, ada); n != i+2 {
			t.Fatalf("%s: optin-svc called %d times, want %d (one per event)", s.typ, n, i+2)
		}
	}
}
