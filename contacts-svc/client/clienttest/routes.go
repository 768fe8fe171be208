package clienttest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/paylane/paylane/contacts-svc/client"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/phone"
)

func (f *Contacts) contact(w http.ResponseWriter, r *http.Request, c Call) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, ct := range f.tenantLocked(c.Tenant).contacts {
		if ct.ID == r.PathValue("id") {
			writeData(w, http.StatusOK, ct)
			return
		}
	}
	writeFailure(w, http.StatusNotFound)
}

// byID answers the read by ids as contacts-svc does: 1 to 100 well-formed
// ids, the tenant's contacts among them (deleted ones too), others left out.
func (f *Contacts) byID(w http.ResponseWriter, r *http.Request, c Call) {
	raw := r.URL.Query().Get("ids")
	list := strings.Split(raw, ",")
	bad := raw == "" || len(list) > client.MaxByID
	for _, id := range list {
		bad = bad || !ids.Valid(id)
	}
	if bad {
		writeError(w, http.StatusUnprocessableEntity, "validation_failed", "The given data was invalid.",
			map[string][]string{"ids": {"The ids field must name 1 to 100 contact ids."}})
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	found := []client.Contact{}
	for _, ct := range f.tenantLocked(c.Tenant).contacts {
		if slices.Contains(list, ct.ID) {
			found = append(found, *ct)
		}
	}
	writeData(w, http.StatusOK, found)
}

func (f *Contacts) phone(w http.ResponseWriter, r *http.Request, c Call) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, rec := range f.tenantLocked(c.Tenant).phones {
		if rec.ID == r.PathValue("id") {
			writeData(w, http.StatusOK, rec)
			return
		}
	}
	writeFailure(w, http.StatusNotFound)
}

func (f *Contacts) findOrCreate(w http.ResponseWriter, _ *http.Request, c Call) {
	var in client.ContactInput
	if err := json.Unmarshal(c.Body, &in); err != nil {
		writeError(w, http.StatusBadRequest, "bad_request", "The body is not valid JSON.", nil)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if in.ExternalID != "" {
		if found := f.tenantLocked(c.Tenant).findLocked(in.ExternalID); found != nil {
			writeData(w, http.StatusOK, map[string]any{"contact": found, "created": false})
			return
		}
	}
	created, problems := f.createLocked(c.Tenant, c.Region, in)
	if problems != nil {
		writeError(w, http.StatusUnprocessableEntity, "validation_failed", "The given data was invalid.", problems)
		return
	}
	writeData(w, http.StatusCreated, map[string]any{"contact": created, "created": true})
}

func (f *Contacts) search(w http.ResponseWriter, r *http.Request, c Call) {
	q := r.URL.Query()
	name := strings.ToLower(strings.TrimSpace(q.Get("name")))
	number, email := q.Get("phone"), q.Get("email")
	f.mu.Lock()
	cands, chosen := f.candidates[c.Tenant+"/"+q.Get("name")]
	f.mu.Unlock()
	if chosen {
		writeData(w, http.StatusOK, append([]client.Candidate{}, cands...))
		return
	}
	if number != "" {
		e164, err := phone.Normalize(number, c.Region)
		if err != nil {
			writeError(w, http.StatusUnprocessableEntity, "validation_failed", "The given data was invalid.",
				map[string][]string{"phone": {MsgPhoneInvalid}})
			return
		}
		number = e164
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	out := []client.Candidate{}
	for _, ct := range f.tenantLocked(c.Tenant).contacts {
		full := strings.ToLower(strings.TrimSpace(deref(ct.FirstName) + " " + deref(ct.LastName)))
		switch {
		case !ct.Live(),
			number != "" && ct.Phone != number,
			email != "" && !strings.EqualFold(deref(ct.Email), email),
			name != "" && !strings.Contains(full, name),
			name == "" && number == "" && email == "":
			continue
		}
		out = append(out, client.Candidate{ContactID: ct.ID, ExternalID: ct.ExternalID, FirstName: ct.FirstName,
			LastName: ct.LastName, PhoneLast4: phone.Last4(ct.Phone), Score: 1})
	}
	writeData(w, http.StatusOK, out)
}

func (f *Contacts) bulkUpsert(w http.ResponseWriter, _ *http.Request, c Call) {
	var req client.BulkUpsertRawRequest
	if err := json.Unmarshal(c.Body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "bad_request", "The body is not valid JSON.", nil)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.tenantLocked(c.Tenant)
	out := make([]client.RowResult, len(req.Items))
	for i, it := range req.Items {
		key := fmt.Sprintf("%s/%d", req.BatchID, req.FirstRowIndex+i)
		if rec, ok := t.rows[key]; ok {
			out[i] = rec
			continue
		}
		if in, problems := decodeItem(it); problems != nil {
			out[i] = client.RowResult{Action: client.ActionFailed, Errors: problems}
		} else {
			out[i] = f.upsertLocked(c, req.OnDuplicate, in)
		}
		out[i].RowIndex = req.FirstRowIndex + i
		t.rows[key] = out[i]
		if out[i].Action == client.ActionCreated || out[i].Action == client.ActionUpdated {
			f.writes[key]++
		}
	}
	hooks := append([]func(Call){}, f.onWrite...)
	f.mu.Unlock()
	for _, fn := range hooks {
		fn(c)
	}
	f.mu.Lock()
	writeData(w, http.StatusOK, out)
}

// upsertLocked writes one bulk-upsert row: the phone is checked first, then
// a live contact with the row's external id follows on_duplicate.
func (f *Contacts) upsertLocked(c Call, onDuplicate client.OnDuplicate, it client.ContactInput) client.RowResult {
	t := f.tenantLocked(c.Tenant)
	failed := func(p map[string][]string) client.RowResult {
		return client.RowResult{Action: client.ActionFailed, Errors: p}
	}
	if _, p := t.phoneProblems(c.Region, it.Phone, nil); p != nil && p["phone"][0] != MsgPhoneTaken {
		return failed(p)
	}
	if it.ExternalID != "" {
		if found := t.findLocked(it.ExternalID); found != nil {
			switch onDuplicate {
			case client.DuplicateSkip:
				return client.RowResult{Action: client.ActionSkipped, ContactID: found.ID}
			case client.DuplicateFail:
				return failed(map[string][]string{"external_id": {MsgExternalIDTaken}})
			}
			if p := f.updateLocked(c.Tenant, c.Region, found, it); p != nil {
				return failed(p)
			}
			return client.RowResult{Action: client.ActionUpdated, ContactID: found.ID}
		}
	}
	created, p := f.createLocked(c.Tenant, c.Region, it)
	if p != nil {
		return failed(p)
	}
	return client.RowResult{Action: client.ActionCreated, ContactID: created.ID}
}

// decodeItem reads a bulk-upsert item strictly: an unknown field, or a
// value of the wrong type, is the row's error, as in contacts-svc.
func decodeItem(raw json.RawMessage) (client.ContactInput, map[string][]string) {
	var in client.ContactInput
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(&in)
	var typeErr *json.UnmarshalTypeError
	switch {
	case err == nil:
		return in, nil
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return in, map[string][]string{field: {"The " + field + " field is not allowed."}}
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return in, map[string][]string{typeErr.Field: {"The " + typeErr.Field + " field has the wrong type."}}
	default:
		return in, map[string][]string{"item": {"The item must be a JSON object."}}
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
