package testenv

import (
	"net/http"
	"net/url"
	"testing"
)

// Message is a message as the operator plane lists it.
type Message struct {
	ID                string  `json:"id"`
	NotificationID    string  `json:"notification_id"`
	Kind              string  `json:"kind"`
	To                string  `json:"to"`
	From              *string `json:"from"`
	Body              string  `json:"body"`
	Status            string  `json:"status"`
	Provider          string  `json:"provider"`
	ProviderMessageID *string `json:"provider_message_id"`
	Attempts          int     `json:"attempts"`
	FailureReason     *string `json:"failure_reason"`
}

// Messages lists the tenant's messages (to one number when to is not
// empty) on the operator plane, newest first.
func (e *Env) Messages(t testing.TB, tenantID, to string) []Message {
	t.Helper()
	path := "/admin/v1/tenants/" + tenantID + "/messages?per_page=100"
	if to != "" {
		path += "&to=" + url.QueryEscape(to)
	}
	res := e.Do(t, http.MethodGet, path, AdminToken, nil)
	if res.Status != http.StatusOK {
		t.Fatalf("GET %s = %d %s", path, res.Status, res.Body)
	}
	var page struct{ Data []Message }
	res.Decode(t, &page)
	return page.Data
}

// WaitMessage waits until the tenant's message of a notification reaches
// a status other than queued, and returns it.
func (e *Env) WaitMessage(t testing.TB, tenantID, notificationID string) Message {
	t.Helper()
	var found Message
	Eventually(t, "message of "+notificationID, func() bool {
		for _, m := range e.Messages(t, tenantID, "") {
			if m.NotificationID == notificationID && m.Status != "queued" {
				found = m
				return true
			}
		}
		return false
	})
	return found
}
