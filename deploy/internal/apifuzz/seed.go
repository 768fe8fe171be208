package apifuzz

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/authz"
)

// NoRateLimit is the per-token request limit of the tenants made here.
const NoRateLimit = 1_000_000

// NewTenant creates a tenant with the ai_gateway and opt_in flags on and
// no practical request or batch limit, and mints it a token with every ability
// (the token carries the flags as they are when it is minted).
func NewTenant(ctx context.Context, admin *client.Admin, name string) (id, token string, err error) {
	on, limit, region, inFlight := true, NoRateLimit, "US", 1000
	ten, err := admin.CreateTenant(ctx, client.TenantInput{
		Name: &name, DefaultRegion: &region,
		Flags:  &client.FlagsInput{AIGateway: &on, OptIn: &on},
		Limits: &client.LimitsInput{APIRequestsPerMinute: &limit, BatchSubmissionsPerMinute: &limit, BatchesInFlight: &inFlight},
	})
	if err != nil {
		return "", "", fmt.Errorf("creating tenant %s: %w", name, err)
	}
	tok, err := Mint(ctx, admin, ten.ID, name+" all", authz.All())
	return ten.ID, tok, err
}

// Mint mints a token of tenantID with the abilities.
func Mint(ctx context.Context, admin *client.Admin, tenantID, name string, abilities []string) (string, error) {
	tok, err := admin.CreateToken(ctx, tenantID, client.TokenInput{Name: name, Abilities: abilities})
	if err != nil {
		return "", fmt.Errorf("minting token %s: %w", name, err)
	}
	return tok.Token, nil
}

// Fixtures are one tenant's resources, one of every kind, made by Seed.
type Fixtures struct {
	TenantID, Token string
	// Prefix marks every name, external id and key of the tenant.
	Prefix string

	ContactID, ContactPhoneID, ContactPhone, ContactExternalID string
	FirstName, LastName, Email                                 string
	Contact2ID, Contact2PhoneID, SuppressedPhone               string
	ContactDefinitionID, ContactDefinitionKey                  string
	TransactionDefinitionID, TransactionDefinitionKey          string
	ReceivableID, ReceivableTransactionID, ReceivableExternal  string
	PayableID, PayableTransactionID, PayableExternal           string
	CampaignID, CampaignName                                   string
	WebhookID, WebhookURL                                      string
	BatchID, BatchPhone                                        string
	SuppressionID                                              string
	OptInCodeID, OptInCodeURL                                  string
	ConsentID, ConsentContactID, ConsentPhone                  string
	DraftTransactionID, DraftReceivableID                      string
	Description                                                string
}

// Seeder makes fixtures through the gateway (and the admin listener for
// what only an operator creates).
type Seeder struct {
	API   *Client // the gateway
	Admin *client.Admin
	// AdminURL and AdminToken reach the admin listener for routes the
	// identity client does not wrap.
	AdminURL, AdminToken string
}

// call sends a JSON request with token and decodes {"data": ...} of an
// answer with status want into out.
func (s *Seeder) call(ctx context.Context, token, method, path string, body any, want int, out any) error {
	req := Request{Method: method, Path: path, Header: map[string]string{"Authorization": "Bearer " + token}}
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		req.Body, req.HasBody = b, true
		req.Header["Content-Type"] = "application/json"
	}
	a := s.API.Do(ctx, req)
	if a.Err != nil {
		return fmt.Errorf("%s %s: %w", method, path, a.Err)
	}
	if a.Status != want {
		return fmt.Errorf("%s %s: status %d, want %d: %s", method, path, a.Status, want, excerpt(string(a.Body), 400))
	}
	if out == nil {
		return nil
	}
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(a.Body, &env); err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	return json.Unmarshal(env.Data, out)
}

// Seed creates one of every resource for the tenant: phone numbers are
// +1415555<phoneBase..phoneBase+4>, names and keys carry prefix.
func (s *Seeder) Seed(ctx context.Context, tenantID, token, prefix string, phoneBase int) (*Fixtures, error) {
	f := &Fixtures{TenantID: tenantID, Token: token, Prefix: prefix}
	phone := func(k int) string { return fmt.Sprintf("+1415555%04d", phoneBase+k) }
	lower := strings.ToLower(prefix)
	f.FirstName, f.LastName = prefix+"Quintessa", prefix+"Marchbanks"
	f.Email = lower + ".quintessa@example.com"
	f.Description = prefix + " order of wombat feed"

	var def struct {
		ID  string `json:"id"`
		Key string `json:"key"`
	}
	if err := s.call(ctx, token, "POST", "/api/v1/contact-field-definitions", map[string]any{
		"key": lower + "_tier", "label": prefix + " tier", "type": "string",
	}, 201, &def); err != nil {
		return nil, err
	}
	f.ContactDefinitionID, f.ContactDefinitionKey = def.ID, def.Key
	if err := s.call(ctx, token, "POST", "/api/v1/transaction-field-definitions", map[string]any{
		"key": lower + "_branch", "label": prefix + " branch", "type": "string",
	}, 201, &def); err != nil {
		return nil, err
	}
	f.TransactionDefinitionID, f.TransactionDefinitionKey = def.ID, def.Key

	var contact struct {
		ID      string `json:"id"`
		PhoneID string `json:"phone_id"`
		Phone   string `json:"phone"`
	}
	f.ContactExternalID = prefix + "-contact-ext"
	if err := s.call(ctx, token, "POST", "/api/v1/contacts", map[string]any{
		"external_id": f.ContactExternalID, "first_name": f.FirstName, "last_name": f.LastName,
		"phone": phone(0), "email": f.Email, "custom_fields": map[string]any{f.ContactDefinitionKey: prefix + " gold"},
	}, 201, &contact); err != nil {
		return nil, err
	}
	f.ContactID, f.ContactPhoneID, f.ContactPhone = contact.ID, contact.PhoneID, contact.Phone
	if err := s.call(ctx, token, "POST", "/api/v1/contacts", map[string]any{
		"external_id": prefix + "-contact2-ext", "first_name": prefix + "Ottoline", "phone": phone(1),
	}, 201, &contact); err != nil {
		return nil, err
	}
	f.Contact2ID, f.Contact2PhoneID, f.SuppressedPhone = contact.ID, contact.PhoneID, contact.Phone

	var item struct {
		ID            string `json:"id"`
		TransactionID string `json:"transaction_id"`
	}
	f.ReceivableExternal = prefix + "-receivable-ext"
	if err := s.call(ctx, token, "POST", "/api/v1/receivables", map[string]any{
		"contact_id": f.ContactID, "amount": 4200, "description": f.Description, "external_id": f.ReceivableExternal,
		"custom_fields": map[string]any{f.TransactionDefinitionKey: prefix + " north"},
	}, 201, &item); err != nil {
		return nil, err
	}
	f.ReceivableID, f.ReceivableTransactionID = item.ID, item.TransactionID
	f.PayableExternal = prefix + "-payable-ext"
	if err := s.call(ctx, token, "POST", "/api/v1/payables", map[string]any{
		"contact_id": f.ContactID, "amount": 1700, "description": f.Description, "external_id": f.PayableExternal,
	}, 201, &item); err != nil {
		return nil, err
	}
	f.PayableID, f.PayableTransactionID = item.ID, item.TransactionID

	var idOnly struct {
		ID  string `json:"id"`
		URL string `json:"url"`
	}
	f.CampaignName = prefix + " reminder campaign"
	if err := s.call(ctx, token, "POST", "/api/v1/campaigns", map[string]any{
		"name": f.CampaignName, "direction": "receivable",
		"steps": []any{map[string]any{"delay_hours": 24, "message": prefix + " reminder step"}},
	}, 201, &idOnly); err != nil {
		return nil, err
	}
	f.CampaignID = idOnly.ID

	f.WebhookURL = "https://hooks.invalid/" + lower
	if err := s.call(ctx, token, "POST", "/api/v1/webhook-endpoints", map[string]any{
		"name": prefix + " hook", "url": f.WebhookURL, "subscribed_events": []string{"contact.*"},
	}, 201, &idOnly); err != nil {
		return nil, err
	}
	f.WebhookID = idOnly.ID

	f.BatchPhone = phone(2)
	if err := s.call(ctx, token, "POST", "/api/v1/contacts/batch", map[string]any{"items": []any{
		map[string]any{"external_id": prefix + "-batch-ext", "first_name": prefix + "Batchelor", "phone": f.BatchPhone},
	}}, 202, &idOnly); err != nil {
		return nil, err
	}
	f.BatchID = idOnly.ID

	if err := s.call(ctx, token, "POST", "/api/v1/suppression-list", map[string]any{
		"contact_phone_id": f.Contact2PhoneID, "reason": "manual", "channel": "sms",
	}, 201, &idOnly); err != nil {
		return nil, err
	}
	f.SuppressionID = idOnly.ID

	var code struct {
		ID  string `json:"id"`
		URL string `json:"url"`
	}
	var env struct {
		Data *json.RawMessage `json:"data"`
	}
	if err := s.Admin.Do(ctx, "POST", "/admin/v1/tenants/"+tenantID+"/opt-in-codes",
		map[string]any{"name": prefix + " code", "double_opt_in": false, "is_live": true}, &env); err != nil {
		return nil, fmt.Errorf("creating an opt-in code: %w", err)
	}
	if env.Data == nil || json.Unmarshal(*env.Data, &code) != nil || code.ID == "" {
		return nil, fmt.Errorf("creating an opt-in code: no data in the answer")
	}
	f.OptInCodeID, f.OptInCodeURL = code.ID, code.URL
	f.ConsentPhone = phone(3)
	if err := s.consent(ctx, f); err != nil {
		return nil, err
	}

	var draft struct {
		TransactionID string `json:"transaction_id"`
		ReceivableID  string `json:"receivable_id"`
	}
	if err := s.call(ctx, token, "POST", "/api/v1/gateway/transactions/prepare", map[string]any{
		"direction": "receivable", "contact_id": f.ContactID, "amount": 1250, "description": f.Description,
	}, 201, &draft); err != nil {
		return nil, err
	}
	f.DraftTransactionID, f.DraftReceivableID = draft.TransactionID, draft.ReceivableID
	return f, nil
}

var csrfField = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

// consent submits the opt-in code's landing page with ConsentPhone and
// waits for the consent to be listed.
func (s *Seeder) consent(ctx context.Context, f *Fixtures) error {
	u, err := url.Parse(f.OptInCodeURL)
	if err != nil || u.Path == "" {
		return fmt.Errorf("opt-in code url %q: %v", f.OptInCodeURL, err)
	}
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Timeout: s.API.timeout, Transport: s.API.HTTP.Transport, Jar: jar}
	page, err := browser.Get(s.API.BaseURL + u.Path)
	if err != nil {
		return fmt.Errorf("opt-in landing page: %w", err)
	}
	html := readAll(page)
	m := csrfField.FindStringSubmatch(html)
	if page.StatusCode != 200 || m == nil {
		return fmt.Errorf("opt-in landing page: status %d, no _csrf field", page.StatusCode)
	}
	form := url.Values{"phone": {f.ConsentPhone}, "consent": {"yes"}, "_csrf": {m[1]}}
	done, err := browser.PostForm(s.API.BaseURL+u.Path, form)
	if err != nil {
		return fmt.Errorf("opt-in form: %w", err)
	}
	if body := readAll(done); done.StatusCode != 200 {
		return fmt.Errorf("opt-in form: status %d: %s", done.StatusCode, excerpt(body, 300))
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var rows []struct {
			ID        string `json:"id"`
			ContactID string `json:"contact_id"`
		}
		if err := s.call(ctx, f.Token, "GET", "/api/v1/opt-ins?opt_in_code_id="+url.QueryEscape(f.OptInCodeID), nil, 200, &rows); err != nil {
			return err
		}
		if len(rows) > 0 {
			f.ConsentID, f.ConsentContactID = rows[0].ID, rows[0].ContactID
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no opt-in listed for code %s 20 s after the form", f.OptInCodeID)
		}
	}
}

func readAll(r *http.Response) string {
	defer r.Body.Close()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
	}
}

// PathValue is the fixture id a path parameter of op takes.
func (f *Fixtures) PathValue(op Operation, param string) (string, bool) {
	under := func(prefix string) bool { return strings.HasPrefix(op.Path, prefix) }
	v := map[string]string{
		"contact":          f.ContactID,
		"receivable":       f.ReceivableID,
		"payable":          f.PayableID,
		"campaign":         f.CampaignID,
		"reference":        f.ReceivableID,
		"batch":            f.BatchID,
		"webhook_endpoint": f.WebhookID,
		"contactPhone":     f.SuppressedPhone,
		"optInCode":        f.OptInCodeID,
	}[param]
	switch param {
	case "definition":
		v = f.TransactionDefinitionID
		if under("/contact-field-definitions") {
			v = f.ContactDefinitionID
		}
	case "transaction":
		v = f.ReceivableTransactionID
		if under("/gateway/") {
			v = f.DraftTransactionID
		}
	}
	return v, v != ""
}

// IsReference reports whether a body or query field named name refers to
// another resource by id (contact_id, campaign_id, ...): the sweeps must
// know a fixture for it.
func IsReference(name string) bool {
	return strings.HasSuffix(name, "_id") && name != "external_id" && name != "phone_id"
}

// RefValue is the fixture a reference field (its last name: contact_id)
// or a lookup field (contact.external_id) takes.
func (f *Fixtures) RefValue(path string) (string, bool) {
	if path == "contact.external_id" || strings.HasSuffix(path, "].contact.external_id") {
		return f.ContactExternalID, true
	}
	name := path[strings.LastIndexAny(path, ".]")+1:]
	v := map[string]string{
		"contact_id":          f.ContactID,
		"campaign_id":         f.CampaignID,
		"contact_phone_id":    f.Contact2PhoneID,
		"opt_in_code_id":      f.OptInCodeID,
		"transaction_id":      f.ReceivableTransactionID,
		"receivable_id":       f.ReceivableID,
		"payable_id":          f.PayableID,
		"batch_id":            f.BatchID,
		"webhook_endpoint_id": f.WebhookID,
		"consent_id":          f.ConsentID,
		"suppression_id":      f.SuppressionID,
	}[name]
	return v, v != ""
}

// Filler fills every reference field of a body with the fixture's id.
func (f *Fixtures) Filler(Operation) Filler {
	return func(path string, _ Schema) (any, bool) {
		name := path[strings.LastIndexAny(path, ".]")+1:]
		if !IsReference(name) && !strings.HasSuffix(path, "contact.external_id") {
			return nil, false
		}
		return f.RefValue(path)
	}
}

// QueryValue is the fixture a list filter takes: ids, the external id and
// the phone number of the tenant's resources.
func (f *Fixtures) QueryValue(op Operation, name string) (string, bool) {
	switch name {
	case "external_id":
		switch {
		case strings.HasPrefix(op.Path, "/receivables"):
			return f.ReceivableExternal, true
		case strings.HasPrefix(op.Path, "/payables"):
			return f.PayableExternal, true
		}
		return f.ContactExternalID, true
	case "phone":
		return f.ContactPhone, true
	}
	if IsReference(name) {
		return f.RefValue(name)
	}
	return "", false
}

// IDs are the fixture's resource ids: none may appear in another tenant's
// answer.
func (f *Fixtures) IDs() []string {
	return nonEmpty(f.ContactID, f.ContactPhoneID, f.Contact2ID, f.Contact2PhoneID, f.ContactDefinitionID,
		f.TransactionDefinitionID, f.ReceivableID, f.ReceivableTransactionID, f.PayableID, f.PayableTransactionID,
		f.CampaignID, f.WebhookID, f.BatchID, f.SuppressionID, f.OptInCodeID, f.ConsentID, f.ConsentContactID,
		f.DraftTransactionID, f.DraftReceivableID, f.TenantID)
}

// Data are the fixture's values other than ids (numbers, names, external
// ids, keys): none may appear in another tenant's answer unless that
// tenant sent it.
func (f *Fixtures) Data() []string {
	national := func(e164 string) string { return strings.TrimPrefix(e164, "+1") }
	return nonEmpty(f.ContactPhone, national(f.ContactPhone), f.SuppressedPhone, national(f.SuppressedPhone),
		f.BatchPhone, national(f.BatchPhone), f.ConsentPhone, national(f.ConsentPhone), f.ContactExternalID,
		f.FirstName, f.LastName, f.Email, f.ContactDefinitionKey, f.TransactionDefinitionKey, f.ReceivableExternal,
		f.PayableExternal, f.CampaignName, f.WebhookURL, f.Description, f.Prefix+"-contact2-ext", f.Prefix+"-batch-ext",
		f.Prefix+"Ottoline", f.Prefix+"Batchelor", f.Prefix+" gold", f.Prefix+" north", f.Prefix+" reminder step")
}

func nonEmpty(xs ...string) []string {
	var out []string
	for _, x := range xs {
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}
