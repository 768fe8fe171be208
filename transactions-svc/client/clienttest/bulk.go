package clienttest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/transactions-svc/client"
)

// Campaign is a campaign the fake knows; only active published campaigns
// are assignable, and only to their direction.
type Campaign struct {
	ID, Direction string
	Steps         int
	// Inactive campaigns are refused by CampaignSteps and left out of
	// auto-assignment.
	Inactive bool
}

// AddCampaign makes tenant's campaign c known.
func (f *Fake) AddCampaign(tenantID string, c Campaign) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.campaigns[tenantID] = append(f.campaigns[tenantID], c)
}

// FailWhen adds a rule choosing an error answer for a request (0: answer
// normally); the first rule answering a status wins.
func (f *Fake) FailWhen(rule func(Request) int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rules = append(f.rules, rule)
}

// Holding returns a rule answering status to any request whose body holds
// marker, as a service failing on one row's content does.
func Holding(marker string, status int) func(Request) int {
	return func(r Request) int {
		if strings.Contains(string(r.Raw), marker) {
			return status
		}
		return 0
	}
}

// BulkCreate decodes the body of a bulk-create request (zero for another).
func (r Request) BulkCreate() client.BulkCreateRequest {
	var req client.BulkCreateRequest
	_ = json.Unmarshal(r.Raw, &req)
	return req
}

// campaignLocked returns tenant's active campaign id of direction, or false.
func (f *Fake) campaignLocked(tenantID, direction, id string) (Campaign, bool) {
	for _, c := range f.campaigns[tenantID] {
		if c.ID == id && c.Direction == direction && !c.Inactive {
			return c, true
		}
	}
	return Campaign{}, false
}

// steps answers the submit-time check: the campaign's steps (422 naming
// campaign_id unless it is an active campaign of the direction), else with
// auto_assign the most steps among the direction's active campaigns, else 0.
func (f *Fake) steps(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	direction := q.Get("direction")
	if !holds(r, "api:create-"+direction) {
		writeError(w, http.StatusForbidden, "forbidden", "This action is unauthorized.")
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	tenant, steps := tenantOf(r), 0
	switch {
	case q.Get("campaign_id") != "":
		c, ok := f.campaignLocked(tenant, direction, q.Get("campaign_id"))
		if !ok {
			writeErrorDetails(w, http.StatusUnprocessableEntity, "validation_failed", "The given data was invalid.",
				map[string][]string{"campaign_id": {"The selected campaign is invalid."}})
			return
		}
		steps = c.Steps
	case q.Get("auto_assign") == "true":
		for _, c := range f.campaigns[tenant] {
			if c.Direction == direction && !c.Inactive {
				steps = max(steps, c.Steps)
			}
		}
	}
	writeData(w, http.StatusOK, map[string]int{"steps": steps})
}

// bulkItem is what the fake reads of a bulk-create item.
type bulkItem struct {
	Amount     int64  `json:"amount"`
	Currency   string `json:"currency"`
	ExternalID string `json:"external_id"`
}

// bulkCreate writes a chunk: every row is recorded under (batch id, row
// index) and answered from the record when sent again; a row without an
// amount fails on amount; a row whose external_id names an earlier item
// of the tenant follows on_duplicate; a campaign that is not an active one
// of the direction fails the rows that would create. The items' contacts
// are taken as given (the fake does not call contacts-svc).
func (f *Fake) bulkCreate(w http.ResponseWriter, r *http.Request) {
	var req client.BulkCreateRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "bad_request", "The body is not valid JSON.")
		return
	}
	direction := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/internal/v1/"), "s/bulk-create")
	if !holds(r, "api:create-"+direction) {
		writeError(w, http.StatusForbidden, "forbidden", "This action is unauthorized.")
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	tenant := tenantOf(r)
	_, campaignOK := f.campaignLocked(tenant, direction, req.CampaignID)
	out := make([]client.BulkRowResult, len(req.Items))
	for i, raw := range req.Items {
		row := req.FirstRowIndex + i
		key := tenant + "/" + req.BatchID + "/" + strconv.Itoa(row)
		if rec, ok := f.bulkRows[key]; ok {
			out[i] = rec
			continue
		}
		out[i] = f.bulkRowLocked(tenant, direction, req, raw, req.CampaignID == "" || campaignOK)
		out[i].RowIndex = row
		f.bulkRows[key] = out[i]
	}
	writeData(w, http.StatusOK, out)
}

// bulkRowLocked decides one new row.
func (f *Fake) bulkRowLocked(tenant, direction string, req client.BulkCreateRequest, raw json.RawMessage, campaignOK bool) client.BulkRowResult {
	failed := func(field, msg string) client.BulkRowResult {
		return client.BulkRowResult{Action: client.ActionFailed, Errors: map[string][]string{field: {msg}}}
	}
	var it bulkItem
	if err := json.Unmarshal(raw, &it); err != nil {
		return failed("item", "The item must be a JSON object.")
	}
	if it.Amount <= 0 {
		return failed("amount", "The amount field is required.")
	}
	if it.ExternalID != "" {
		for _, tx := range f.txns[tenant] {
			if tx.Direction == direction && tx.externalID == it.ExternalID {
				switch req.OnDuplicate {
				case client.DuplicateSkip:
					return client.BulkRowResult{Action: client.ActionSkipped, ID: tx.ChildID}
				case client.DuplicateFail:
					return failed("external_id", "The external id has already been taken.")
				}
				tx.Amount = it.Amount
				return client.BulkRowResult{Action: client.ActionUpdated, ID: tx.ChildID}
			}
		}
	}
	if !campaignOK {
		return failed("campaign_id", fmt.Sprintf("The campaign %s is not an active published %s campaign.", req.CampaignID, direction))
	}
	tx := &Transaction{ID: ids.New(), ChildID: ids.New(), Direction: direction, Status: "pending", Amount: it.Amount,
		Currency: it.Currency, externalID: it.ExternalID}
	if tx.Currency == "" {
		tx.Currency = "USD"
	}
	f.txns[tenant] = append(f.txns[tenant], tx)
	return client.BulkRowResult{Action: client.ActionCreated, ID: tx.ChildID}
}
