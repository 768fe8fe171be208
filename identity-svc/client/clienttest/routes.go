package clienttest

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/ids"
)

func (f *Identity) introspect(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Token string `json:"token"`
	}
	_ = json.NewDecoder(r.Body).Decode(&in)
	f.mu.Lock()
	tok, ok := f.tokens[in.Token]
	f.mu.Unlock()
	if !ok {
		writeError(w, http.StatusUnauthorized, "unauthenticated", "Unauthenticated.")
		return
	}
	internal, exp, err := f.sign(tok.tenant, tok.id, tok.abilities, fmt.Sprint(tok.id))
	if err != nil {
		writeError(w, http.StatusInternalServerError, "server_error", err.Error())
		return
	}
	f.mu.Lock()
	tn := *f.tenants[tok.tenant]
	f.mu.Unlock()
	writeData(w, http.StatusOK, client.Introspection{TenantID: tok.tenant, TokenID: tok.id, Abilities: tok.abilities,
		Flags: tn.Flags, Limits: tn.Limits, InternalToken: internal, InternalTokenExpiresAt: exp})
}

func (f *Identity) serviceToken(w http.ResponseWriter, r *http.Request) {
	var in struct {
		TenantID  string   `json:"tenant_id"`
		Abilities []string `json:"abilities"`
		Service   string   `json:"service"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeError(w, http.StatusBadRequest, "bad_request", "The body is not valid JSON.")
		return
	}
	f.mu.Lock()
	_, ok := f.tenants[in.TenantID]
	f.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, "resource_not_found", "No such tenant.")
		return
	}
	tok, exp, err := f.sign(in.TenantID, 0, in.Abilities, "service:"+in.Service)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "server_error", err.Error())
		return
	}
	writeData(w, http.StatusOK, client.ServiceToken{InternalToken: tok, InternalTokenExpiresAt: exp})
}

func (f *Identity) tenant(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	tn, ok := f.tenants[r.PathValue("id")]
	var out client.Tenant
	if ok {
		out = *tn
	}
	f.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, "resource_not_found", "No such tenant.")
		return
	}
	writeData(w, http.StatusOK, out)
}

func (f *Identity) tenantByNumber(w http.ResponseWriter, r *http.Request) {
	number := r.URL.Query().Get("sms_number")
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, tn := range f.tenants {
		if tn.SMSNumber != nil && *tn.SMSNumber == number {
			writeData(w, http.StatusOK, *tn)
			return
		}
	}
	writeError(w, http.StatusNotFound, "resource_not_found", "No tenant has this number.")
}

func (f *Identity) createTenant(w http.ResponseWriter, r *http.Request) {
	now := time.Now().UTC()
	tn := &client.Tenant{ID: ids.New(), Name: "Tenant", DefaultCurrency: "USD", DefaultRegion: "US", CreatedAt: now}
	f.change(w, r, tn, http.StatusCreated)
}

func (f *Identity) updateTenant(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	tn, ok := f.tenants[r.PathValue("id")]
	f.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, "resource_not_found", "No such tenant.")
		return
	}
	f.change(w, r, tn, http.StatusOK)
}

// change applies a TenantInput to tn, stores it, answers it with status
// and tells the OnTenantUpdated callbacks.
func (f *Identity) change(w http.ResponseWriter, r *http.Request, tn *client.Tenant, status int) {
	var in client.TenantInput
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeError(w, http.StatusBadRequest, "bad_request", "The body is not valid JSON.")
		return
	}
	f.mu.Lock()
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&tn.Name, in.Name)
	set(&tn.DefaultCurrency, in.DefaultCurrency)
	set(&tn.DefaultRegion, in.DefaultRegion)
	if in.SMSNumber != nil {
		tn.SMSNumber = in.SMSNumber
		if *in.SMSNumber == "" {
			tn.SMSNumber = nil
		}
	}
	if in.Flags != nil && in.Flags.AIGateway != nil {
		tn.Flags.AIGateway = *in.Flags.AIGateway
	}
	if in.Flags != nil && in.Flags.OptIn != nil {
		tn.Flags.OptIn = *in.Flags.OptIn
	}
	tn.UpdatedAt = time.Now().UTC()
	f.tenants[tn.ID] = tn
	out, hooks := *tn, append([]func(client.Tenant){}, f.onUpdate...)
	f.mu.Unlock()
	for _, fn := range hooks {
		fn(out)
	}
	writeData(w, status, out)
}

func (f *Identity) createToken(w http.ResponseWriter, r *http.Request) {
	var in client.TokenInput
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeError(w, http.StatusBadRequest, "bad_request", "The body is not valid JSON.")
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.tenants[r.PathValue("id")]; !ok {
		writeError(w, http.StatusNotFound, "resource_not_found", "No such tenant.")
		return
	}
	f.nextToken++
	plain := fmt.Sprintf("pl_%d|%s", f.nextToken, rand.Text())
	f.tokens[plain] = token{id: f.nextToken, tenant: r.PathValue("id"), abilities: in.Abilities}
	writeData(w, http.StatusCreated, client.NewToken{ID: f.nextToken, Name: in.Name, Abilities: in.Abilities, Token: plain})
}
