package clienttest

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/paylane/paylane/contacts-svc/client"
	"github.com/paylane/paylane/libs/phone"
)

// listContacts answers GET /api/v1/contacts as contacts-svc does: newest
// first, phone (read in the token's region) and external_id filters,
// with_trashed, page and per_page (25 by default, at most 100).
func (f *Contacts) listContacts(w http.ResponseWriter, r *http.Request, c Call) {
	q := r.URL.Query()
	number, external := q.Get("phone"), strings.TrimSpace(q.Get("external_id"))
	trashed := q.Get("with_trashed") == "1" || q.Get("with_trashed") == "true"
	if number = strings.TrimSpace(number); number != "" {
		e164, err := phone.Normalize(number, c.Region)
		if err != nil {
			writeError(w, http.StatusUnprocessableEntity, "validation_failed", "The given data was invalid.",
				map[string][]string{"phone": {MsgPhoneFilterInvalid}})
			return
		}
		number = e164
	}
	pageNo, perPage, ok := pageOf(q.Get("page"), q.Get("per_page"))
	if !ok {
		writeError(w, http.StatusUnprocessableEntity, "validation_failed", "The given data was invalid.",
			map[string][]string{"page": {"The page must be a positive integer."}})
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var match []client.Contact
	for _, ct := range f.tenantLocked(c.Tenant).contacts {
		switch {
		case !trashed && !ct.Live(),
			number != "" && ct.Phone != number,
			external != "" && deref(ct.ExternalID) != external:
			continue
		}
		shown := *ct
		if !trashed {
			shown.DeletedAt = nil
		}
		match = append(match, shown)
	}
	slices.Reverse(match)
	total := len(match)
	from, to := min((pageNo-1)*perPage, total), min(pageNo*perPage, total)
	last := max(1, (total+perPage-1)/perPage)
	writeJSON(w, http.StatusOK, client.ContactPage{Data: append([]client.Contact{}, match[from:to]...),
		Meta: client.Meta{CurrentPage: pageNo, PerPage: perPage, Total: total, LastPage: last}})
}

// showContact answers GET /api/v1/contacts/{id}[?with_trashed=1]: the
// contact with opt_in_status none and no consents (the fake keeps none).
func (f *Contacts) showContact(w http.ResponseWriter, r *http.Request, c Call) {
	trashed := r.URL.Query().Get("with_trashed") == "1"
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, ct := range f.tenantLocked(c.Tenant).contacts {
		if ct.ID == r.PathValue("id") && (trashed || ct.Live()) {
			shown := *ct
			shown.OptInStatus, shown.Consents = "none", []client.Consent{}
			writeData(w, http.StatusOK, shown)
			return
		}
	}
	writeFailure(w, http.StatusNotFound)
}

// pageOf reads page and per_page as contacts-svc does.
func pageOf(page, perPage string) (int, int, bool) {
	n, size := 1, 25
	if page != "" {
		v, err := strconv.Atoi(page)
		if err != nil || v < 1 {
			return 0, 0, false
		}
		n = v
	}
	if perPage != "" {
		v, err := strconv.Atoi(perPage)
		if err != nil || v < 1 {
			return 0, 0, false
		}
		size = min(v, 100)
	}
	return n, size, true
}
