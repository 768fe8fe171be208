package httpapi_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/tenancy"
)

// Contact writes validate custom fields with the tenant's definitions,
// which contacts-svc caches: every definition write must apply to the very
// next contact write of the replica.
func TestDefinitionWritesApplyToTheNextContactWrite(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tok := e.token(t, tenantA, all()...)
	create := func(custom string, header map[string]string) result {
		return e.do(t, request{method: "POST", path: "/api/v1/contacts", token: tok, header: header,
			body: `{"phone":"` + e.phone() + `","custom_fields":` + custom + `}`})
	}
	const tier = "custom_fields.tier"
	// Read (and cached) before tier exists.
	checkResult(t, create(`{"tier":"gold"}`, nil), 422, apierr.CodeValidationFailed, tier)

	def := e.define(t, `{"key":"tier","label":"Tier","type":"enum","options":["gold","silver"]}`)
	if r := create(`{"tier":"gold"}`, nil); r.status != http.StatusCreated {
		t.Fatalf("after defining tier: %d %s", r.status, r.body)
	}
	checkResult(t, create(`{"tier":"bronze"}`, nil), 422, apierr.CodeValidationFailed, tier)
	// Another tenant's definitions are its own.
	other := e.do(t, request{method: "POST", path: "/api/v1/contacts", token: e.token(t, tenantB, all()...),
		body: `{"phone":"` + e.phone() + `","custom_fields":{"tier":"gold"}}`})
	checkResult(t, other, 422, apierr.CodeValidationFailed, tier)

	// A replacement under an Idempotency-Key commits with the stored response.
	put := e.do(t, request{method: "PUT", path: "/api/v1/contact-field-definitions/" + def.ID, token: tok,
		body: `{"label":"Tier","options":["gold","silver","bronze"],"required":true}`, header: keyed("put-tier")})
	if put.status != http.StatusOK {
		t.Fatalf("replacing tier: %d %s", put.status, put.body)
	}
	checkResult(t, create(`{}`, keyed("required")), 422, apierr.CodeValidationFailed, tier)
	if r := create(`{"tier":"bronze"}`, nil); r.status != http.StatusCreated {
		t.Fatalf("after adding bronze: %d %s", r.status, r.body)
	}

	del := e.do(t, request{method: "DELETE", path: "/api/v1/contact-field-definitions/" + def.ID, token: tok})
	if del.status != http.StatusNoContent {
		t.Fatalf("deleting tier: %d %s", del.status, del.body)
	}
	checkResult(t, create(`{"tier":"gold"}`, nil), 422, apierr.CodeValidationFailed, tier)
	if r := create(`{}`, nil); r.status != http.StatusCreated {
		t.Fatalf("after deleting tier: %d %s", r.status, r.body)
	}
}

// A 4xx found after the write's first statement went out (an external id
// held by a live contact) is stored with the key, and nothing of the write
// stays: the phone number is free for the next contact.
func TestIdempotentRefusalAfterTheWriteStartedIsStoredAndUndone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tok := e.token(t, tenantA, all()...)
	e.create(t, tenantA, `{"phone":"`+e.phone()+`","external_id":"crm-1"}`)
	free := e.phone()
	body := `{"phone":"` + free + `","external_id":"crm-1"}`
	first := e.do(t, request{method: "POST", path: "/api/v1/contacts", token: tok, body: body, header: keyed("taken")})
	checkResult(t, first, 422, apierr.CodeValidationFailed, "external_id")
	if _, _, details := first.envelope(); details["phone"] != nil {
		t.Errorf("the free phone is reported taken: %s", first.body)
	}
	replay := e.do(t, request{method: "POST", path: "/api/v1/contacts", token: tok, body: body, header: keyed("taken")})
	if replay.status != 422 || string(replay.body) != string(first.body) || replay.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replay = %d %s %v", replay.status, replay.body, replay.header)
	}
	if n := e.total(t); n != 1 {
		t.Errorf("contacts = %d, want 1", n)
	}
	c := e.create(t, tenantA, `{"phone":"`+free+`","external_id":"crm-2"}`)
	if c.Phone != free || c.PhoneID == "" {
		t.Errorf("contact with the freed phone = %+v", c)
	}
}

// Two creates of one new phone that both pass the live-owner check: the
// unique index refuses the second when the first commits, and that 422 is
// stored with its key like any other.
func TestIdempotentCreateLosingTheRaceIsStored(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	tok := e.token(t, tenantA, all()...)
	number := e.phone()

	// The winner: a transaction that inserted the phone and its contact and
	// has not committed yet.
	winner, err := e.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = winner.Rollback(ctx) }()
	var phoneID string
	if err := winner.QueryRow(ctx, `SELECT set_config('app.tenant_id', $1, true)`, tenantA).Scan(new(string)); err != nil {
		t.Fatal(err)
	}
	if err := winner.QueryRow(ctx, `INSERT INTO phones (id, tenant_id, e164) VALUES ($1, $2, $3) RETURNING id`,
		ids.New(), tenantA, number).Scan(&phoneID); err != nil {
		t.Fatal(err)
	}
	if _, err := winner.Exec(ctx, `INSERT INTO contacts (id, tenant_id, phone_id, created_at, updated_at)
		VALUES ($1, $2, $3, now(), now())`, ids.New(), tenantA, phoneID); err != nil {
		t.Fatal(err)
	}

	body := `{"phone":"` + number + `"}`
	loser := make(chan result, 1)
	go func() {
		loser <- e.do(t, request{method: "POST", path: "/api/v1/contacts", token: tok, body: body, header: keyed("loser")})
	}()
	waitForLockWait(t, e)
	if err := winner.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	first := <-loser
	checkResult(t, first, 422, apierr.CodeValidationFailed, "phone")
	replay := e.do(t, request{method: "POST", path: "/api/v1/contacts", token: tok, body: body, header: keyed("loser")})
	if replay.status != 422 || string(replay.body) != string(first.body) || replay.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replay = %d %s %v", replay.status, replay.body, replay.header)
	}
	if n := e.total(t); n != 1 {
		t.Errorf("contacts = %d, want 1 (the winner)", n)
	}
}

// waitForLockWait waits until a session of the test's database waits for a
// lock (the second create, on the winner's phone record).
func waitForLockWait(t *testing.T, e *env) {
	t.Helper()
	for range 3000 {
		var waiting bool
		err := e.pool.QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock')`).Scan(&waiting)
		if err != nil {
			t.Fatal(err)
		}
		if waiting {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the second create never waited for the first")
}

// A create with an Idempotency-Key commits in one round trip on the
// assumption that its number is new (or has the record id this process
// knows). A record another replica made is unknown here: the assumption
// fails, nothing of it commits, and the create runs again and links the
// contact to that record, with one contact.created naming it.
func TestOneShotCreateOfANumberWithAnUnknownRecord(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	tok := e.token(t, tenantA, all()...)
	number := e.phone()
	recordID := ids.New()
	err := tenancy.Do(ctx, e.pool, tenantA, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO phones (id, tenant_id, e164) VALUES ($1, $2, $3)`, recordID, tenantA, number)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	body := `{"first_name":"Ada","phone":"` + number + `"}`
	r := e.do(t, request{method: "POST", path: "/api/v1/contacts", token: tok, body: body, header: keyed("unknown-record")})
	var c contactJSON
	r.data(t, &c)
	if r.status != 201 || c.PhoneID != recordID {
		t.Fatalf("create = %d %s, want 201 with phone_id %s", r.status, r.body, recordID)
	}
	rows, err := e.pool.Query(ctx, `SELECT payload->'data'->>'phone_id' FROM outbox WHERE payload->>'type' = 'contact.created'`)
	if err != nil {
		t.Fatal(err)
	}
	published, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(published) != 1 || published[0] != recordID {
		t.Errorf("contact.created events name phone ids %v, want one naming %s", published, recordID)
	}
	if n := e.total(t); n != 1 {
		t.Errorf("contacts = %d, want 1", n)
	}
	// The number is now held: the next one-shot create refuses its
	// assumption and the run again answers the usual 422.
	again := e.do(t, request{method: "POST", path: "/api/v1/contacts", token: tok, body: body, header: keyed("held")})
	checkResult(t, again, 422, apierr.CodeValidationFailed, "phone")
	// A new number commits in one shot with a new record.
	fresh := e.do(t, request{method: "POST", path: "/api/v1/contacts", token: tok,
		body: `{"phone":"` + e.phone() + `"}`, header: keyed("fresh")})
	var f contactJSON
	fresh.data(t, &f)
	if fresh.status != 201 || f.PhoneID == "" || f.PhoneID == recordID {
		t.Errorf("create of a new number = %d %s", fresh.status, fresh.body)
	}
}
