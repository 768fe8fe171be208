package testenv

import (
	"net/http"
	"testing"
)

// Code is an opt-in code as the API shows it.
type Code struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	URL         string `json:"url"`
	IsLive      bool   `json:"is_live"`
	IsDefault   bool   `json:"is_default"`
	DoubleOptIn bool   `json:"double_opt_in"`
	ScanCount   int64  `json:"scan_count"`
	OptInCount  int64  `json:"opt_in_count"`
	CreatedAt   string `json:"created_at"`
}

// Path is the landing page path of the code (its URL without the host).
func (c Code) Path() string { return c.URL[len(PublicBaseURL):] }

// NewCode creates an opt-in code on the operator plane.
func (e *Env) NewCode(t testing.TB, tenantID string, body map[string]any) Code {
	t.Helper()
	res := e.Do(t, http.MethodPost, "/admin/v1/tenants/"+tenantID+"/opt-in-codes", AdminToken, body)
	if res.Status != http.StatusCreated {
		t.Fatalf("creating opt-in code = %d %s", res.Status, res.Body)
	}
	var out struct{ Data Code }
	res.Decode(t, &out)
	return out.Data
}
