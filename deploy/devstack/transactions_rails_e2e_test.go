package devstack

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// wireFailure is the failure part of a receivable or payable.
type wireFailure struct {
	Status        string  `json:"status"`
	FailureReason *string `json:"failure_reason"`
	PaymentMethod *string `json:"payment_method"`
}

// state reads a receivable or payable with its failure fields.
func (x *transactionsE2E) state(t *testing.T, path string) wireFailure {
	t.Helper()
	var f wireFailure
	x.decode(t, x.call(t, http.MethodGet, path, x.token, "", nil), http.StatusOK, &f)
	return f
}

// decode expects status and decodes the response's data into dst.
func (x *transactionsE2E) decode(t *testing.T, r response, status int, dst any) {
	t.Helper()
	(&optinE2E{contactsE2E: x.contactsE2E}).decodeData(t, r, status, dst)
}

// awaitState polls path until its status is want (the rail answers after
// the page's post, the scheduler and consumers run in the background).
func (x *transactionsE2E) awaitState(t *testing.T, path, want string) wireFailure {
	t.Helper()
	var f wireFailure
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if f = x.state(t, path); f.Status == want {
			return f
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: status %q after 20 s, want %q", path, f.Status, want)
		}
	}
}

// card is the pay page's form for a card number.
func card(number string) url.Values {
	return url.Values{"card_number": {number}, "exp_month": {"12"}, "exp_year": {"2031"},
		"cvc": {"123"}, "cardholder_name": {"Ada Lovelace"}}
}

// sandboxCards pays with each card of the sandbox rail (contract section
// 6): a declined card leaves the receivable pending with failure_reason
// card_declined and the form shown again; a processor error fails it, and
// retry-payment through the API then pays it.
func (x *transactionsE2E) sandboxCards(t *testing.T) string {
	it, _, _ := x.newItem(t, "receivables")
	path := "/api/v1/receivables/" + it.ID
	x.submit(t, *it.PaymentLinkURL, card("4000 0000 0000 0002"), "Your card was declined. Try another card.")
	if f := x.state(t, path); f.Status != "pending" || f.FailureReason == nil || *f.FailureReason != "card_declined" {
		t.Fatalf("after a declined card: %+v, want pending with failure_reason card_declined", f)
	}
	x.submit(t, *it.PaymentLinkURL, card("4000000000000119"), "Payment not completed")
	if f := x.state(t, path); f.Status != "failed" || f.FailureReason == nil {
		t.Fatalf("after a processor error: %+v, want failed with a failure_reason", f)
	}
	x.expectStatus(t, x.call(t, http.MethodPost, path+"/retry-payment", x.token, "", nil), http.StatusOK)
	if f := x.awaitState(t, path, "paid"); f.PaymentMethod == nil || *f.PaymentMethod != "card" {
		t.Fatalf("after retry-payment: %+v, want paid by card", f)
	}
	if r := x.page(t, http.MethodGet, *it.PaymentLinkURL, nil); !strings.Contains(string(r.body), "Payment received") {
		t.Errorf("the link of a paid receivable shows %d:\n%s", r.status, r.body)
	}
	return it.ID
}

// payoutLink waits for the payout SMS of a new payable and returns the
// payable and the link in it.
func (x *transactionsE2E) payoutLink(t *testing.T) (wireItem, string) {
	t.Helper()
	it, _, e164 := x.newItem(t, "payables")
	sms := x.awaitSMS(t, e164, "payout_link")
	link := regexp.MustCompile(`https://\S+/l/p/` + it.ID + `\?expires=\d+&signature=[0-9a-f]+`).FindString(sms)
	if link == "" {
		t.Fatalf("the SMS %q has no payout link", sms)
	}
	return it, link
}

// payoutFailures: an account ending 0000 fails the identity check (the
// payable stays destination_selected with a failure_reason; verify-identity
// re-runs the check; revoke-link sends it back to pending), and a debit card
// ending 1111 fails the first disbursement, which retry-disbursement pays.
func (x *transactionsE2E) payoutFailures(t *testing.T) string {
	it, link := x.payoutLink(t)
	path := "/api/v1/payables/" + it.ID
	x.submit(t, link, url.Values{"destination_type": {"bank_account"}, "account_holder_name": {"Ada Lovelace"},
		"routing_number": {"021000021"}, "account_number": {"000123450000"}}, "Verification needed")
	if f := x.state(t, path); f.Status != "destination_selected" || f.FailureReason == nil {
		t.Fatalf("after a failed identity check: %+v, want destination_selected with a failure_reason", f)
	}
	x.expectStatus(t, x.call(t, http.MethodPost, path+"/verify-identity", x.token, "", nil), http.StatusOK)
	if f := x.state(t, path); f.Status != "destination_selected" {
		t.Fatalf("verify-identity of an account ending 0000: %+v, want destination_selected", f)
	}
	x.expectStatus(t, x.call(t, http.MethodPost, path+"/revoke-link", x.token, "", nil), http.StatusOK)
	if f := x.state(t, path); f.Status != "pending" {
		t.Fatalf("revoke-link in destination_selected: %+v, want pending", f)
	}

	it, link = x.payoutLink(t)
	path = "/api/v1/payables/" + it.ID
	x.submit(t, link, url.Values{"destination_type": {"debit_card"}, "account_holder_name": {"Ada Lovelace"},
		"card_number": {"4111 1111 1111 1111"}}, "Payout delayed")
	if f := x.state(t, path); f.Status != "failed" || f.FailureReason == nil {
		t.Fatalf("after a failed disbursement: %+v, want failed with a failure_reason", f)
	}
	x.expectStatus(t, x.call(t, http.MethodPost, path+"/retry-disbursement", x.token, "", nil), http.StatusOK)
	x.awaitState(t, path, "disbursed")
	return it.ID
}

// raceCancelAndMarkPaid sends 10 cancels and 10 mark-paids at one pending
// receivable at once: exactly one wins, every other answer is the refusal
// that fits the winner's state, and the stored state is the winner's.
func (x *transactionsE2E) raceCancelAndMarkPaid(t *testing.T) {
	it, _, _ := x.newItem(t, "receivables")
	path := "/api/v1/receivables/" + it.ID
	type answer struct {
		action string
		r      response
		err    error
	}
	answers := make(chan answer, 20)
	var wg sync.WaitGroup
	for i := range 20 {
		action := map[bool]string{true: "cancel", false: "mark-paid"}[i%2 == 0]
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := x.send(http.MethodPost, path+"/"+action, x.token, "", nil)
			answers <- answer{action, r, err}
		}()
	}
	wg.Wait()
	close(answers)
	won := map[string]int{}
	var refusals []answer
	for a := range answers {
		if a.err != nil {
			t.Fatal(a.err)
		}
		if a.r.status == http.StatusOK {
			won[a.action]++
			continue
		}
		refusals = append(refusals, a)
	}
	if len(won) != 1 || won["cancel"]+won["mark-paid"] != 1 {
		t.Fatalf("winners %v, want exactly one", won)
	}
	final := map[string]string{"cancel": "cancelled", "mark-paid": "paid"}
	for action := range won {
		if f := x.state(t, path); f.Status != final[action] {
			t.Fatalf("%s won but the receivable is %q", action, f.Status)
		}
		for _, a := range refusals {
			status, code := refusalOf(action, a.action)
			x.expectError(t, a.r, status, code)
		}
	}
}

// refusalOf is the status and code a loser gets once winner has moved the
// receivable: a paid receivable refuses cancel with 409 already_paid;
// anything else is 422 invalid_transition.
func refusalOf(winner, loser string) (int, string) {
	if winner == "mark-paid" && loser == "cancel" {
		return http.StatusConflict, "already_paid"
	}
	return http.StatusUnprocessableEntity, "invalid_transition"
}

// suppressedReceivable: a receivable for a suppressed phone sends no SMS;
// its latest_message shows suppressed (optin-svc's message event reaches
// transactions-svc).
func (x *transactionsE2E) suppressedReceivable(t *testing.T) {
	_, e164 := x.phone()
	contact := x.create(t, x.token, fmt.Sprintf(`{"first_name":"Ada","phone":%q}`, e164))
	body := fmt.Sprintf(`{"contact_phone_id":%q,"reason":"manual","channel":"sms"}`, contact.PhoneID)
	x.expectStatus(t, x.call(t, http.MethodPost, "/api/v1/suppression-list", x.token, body, nil), http.StatusCreated)
	r := x.call(t, http.MethodPost, "/api/v1/receivables", x.token,
		fmt.Sprintf(`{"contact_id":%q,"amount":1500,"description":"Order 8"}`, contact.ID), nil)
	it, _ := x.item(t, r, http.StatusCreated)
	var got wireItem
	for deadline := time.Now().Add(20 * time.Second); got.LatestMessage == nil; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("latest_message still null after 20 s")
		}
		got, _ = x.item(t, x.call(t, http.MethodGet, "/api/v1/receivables/"+it.ID, x.token, "", nil), http.StatusOK)
	}
	if got.LatestMessage.Status != "suppressed" {
		t.Fatalf("latest_message %+v, want status suppressed", *got.LatestMessage)
	}
	path := "/admin/v1/tenants/" + x.info.DemoTenantID + "/messages?to=" + url.QueryEscape(e164)
	msgs := (&optinE2E{contactsE2E: x.contactsE2E}).adminCall(t, http.MethodGet, path, "")
	if strings.Contains(string(msgs.body), `"status":"sent"`) || strings.Contains(string(msgs.body), `"status":"delivered"`) {
		t.Fatalf("an SMS went to a suppressed phone: %s", msgs.body)
	}
}
