package peers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/paylane/paylane/contacts-svc/client"
	"github.com/paylane/paylane/libs/phone"
	"github.com/paylane/paylane/transactions-svc/internal/app"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
	"golang.org/x/sync/errgroup"
)

// lookupWorkers bounds the concurrent reads of existing contacts.
const lookupWorkers = 8

// FindOrCreateMany finds or creates the contacts of batch rows. Rows with a
// phone go to contacts-svc's bulk upsert (on_duplicate skip: a contact
// found by its external id is used as it is), one call per run of
// consecutive row indexes, so each row is recorded there under (batch id,
// its own index). A row with an external id and no phone can only find (a
// contact cannot be created without one, and the bulk upsert validates the
// phone before it looks for the external id): it is looked up alone. A new
// contact's recipient fields come from the row (its phone normalised as
// contacts-svc does); a contact found, or one whose national phone this
// side cannot read, is read back from contacts-svc. Lookups run a few at a
// time. Errors of a row are per field of the contact object.
func (r *Contacts) FindOrCreateMany(ctx context.Context, token string, b app.ContactBatch) ([]app.ContactAnswer, error) {
	var upserts, finds []app.ContactItem
	for _, it := range b.Items {
		if it.Contact.Phone == "" && it.Contact.ExternalID != "" {
			finds = append(finds, it)
		} else {
			upserts = append(upserts, it)
		}
	}
	sort.Slice(upserts, func(i, j int) bool { return upserts[i].Index < upserts[j].Index })
	out := make([]app.ContactAnswer, 0, len(b.Items))
	var lookups []int // positions in out of answers to read back
	for start := 0; start < len(upserts); {
		end := start + 1
		for end < len(upserts) && upserts[end].Index == upserts[end-1].Index+1 {
			end++
		}
		run := upserts[start:end]
		rows, err := r.client.BulkUpsert(ctx, token, upsertRequest(b, run))
		if err != nil {
			return nil, mapBulkError(err)
		}
		if len(rows) != len(run) {
			return nil, fmt.Errorf("%w: contacts-svc answered %d rows for %d", app.ErrUnavailable, len(rows), len(run))
		}
		for i, row := range rows {
			ans, found := answerOf(row, run[i], b.Region)
			if found {
				lookups = append(lookups, len(out))
			}
			out = append(out, ans)
		}
		start = end
	}
	if err := r.readBack(ctx, token, out, lookups); err != nil {
		return nil, err
	}
	found, err := r.findAll(ctx, token, finds)
	if err != nil {
		return nil, err
	}
	return append(out, found...), nil
}

// upsertRequest is the bulk-upsert call of a run of consecutive rows.
func upsertRequest(b app.ContactBatch, run []app.ContactItem) client.BulkUpsertRequest {
	req := client.BulkUpsertRequest{BatchID: b.BatchID, OnDuplicate: client.DuplicateSkip,
		FirstRowIndex: run[0].Index, EmitEvents: b.EmitEvents, Items: make([]client.ContactInput, len(run))}
	for i, it := range run {
		c := it.Contact
		req.Items[i] = client.ContactInput{ExternalID: c.ExternalID, FirstName: c.FirstName, LastName: c.LastName,
			Phone: c.Phone, Email: c.Email}
	}
	return req
}

// answerOf turns a bulk-upsert row into the row's answer, and reports
// whether the contact must be read back (found, not created from the row,
// or a phone this side cannot normalise).
func answerOf(row client.RowResult, it app.ContactItem, region string) (app.ContactAnswer, bool) {
	ans := app.ContactAnswer{Index: it.Index}
	if row.Action == client.ActionFailed || row.ContactID == "" {
		ans.Errors = row.Errors
		if len(ans.Errors) == 0 {
			ans.Errors = map[string][]string{"external_id": {"The contact could not be found or created."}}
		}
		return ans, false
	}
	ans.Contact.ID = row.ContactID
	if row.Action != client.ActionCreated {
		return ans, true
	}
	e164, err := phone.Normalize(it.Contact.Phone, region)
	if err != nil {
		return ans, true
	}
	ans.Contact.FirstName = strings.TrimSpace(it.Contact.FirstName)
	ans.Contact.LastName = strings.TrimSpace(it.Contact.LastName)
	ans.Contact.Phone = e164
	return ans, false
}

// readBack fills the recipient fields of out[i] for every i in at from
// contacts-svc, each distinct contact read once. A contact deleted since it
// was found fails its rows.
func (r *Contacts) readBack(ctx context.Context, token string, out []app.ContactAnswer, at []int) error {
	ids := make([]string, len(at))
	for k, i := range at {
		ids[k] = out[i].Contact.ID
	}
	reads := concurrently(ids, func(id string) lookup {
		c, err := r.Resolve(ctx, token, app.ContactRef{ID: id})
		return lookup{c: c, err: err}
	})
	for _, i := range at {
		rd := reads[out[i].Contact.ID]
		switch {
		case errors.Is(rd.err, txn.ErrContactNotFound):
			out[i].Contact = app.Contact{}
			out[i].Errors = map[string][]string{"external_id": {"The contact with this external_id is no longer live."}}
		case rd.err != nil:
			return fmt.Errorf("reading back contact: %w", rd.err)
		default:
			out[i].Contact = rd.c
		}
	}
	return nil
}

// findAll finds the live contacts of rows by external id alone, each
// distinct external id once. An unknown one fails its rows with
// contacts-svc's reasons (it cannot create a contact without a phone).
func (r *Contacts) findAll(ctx context.Context, token string, items []app.ContactItem) ([]app.ContactAnswer, error) {
	externalIDs := make([]string, len(items))
	for i, it := range items {
		externalIDs[i] = it.Contact.ExternalID
	}
	reads := concurrently(externalIDs, func(ext string) lookup {
		ctx, cancel := context.WithTimeout(ctx, r.timeout)
		defer cancel()
		c, _, err := r.client.FindOrCreate(ctx, token, client.ContactInput{ExternalID: ext}, "")
		if err != nil {
			return lookup{err: err}
		}
		return lookup{c: app.Contact{ID: c.ID, FirstName: deref(c.FirstName), LastName: deref(c.LastName), Phone: c.Phone}}
	})
	out := make([]app.ContactAnswer, len(items))
	for i, it := range items {
		rd := reads[it.Contact.ExternalID]
		out[i] = app.ContactAnswer{Index: it.Index, Contact: rd.c}
		var ce *client.Error
		switch {
		case errors.As(rd.err, &ce) && ce.Status == http.StatusUnprocessableEntity && len(ce.Fields()) > 0:
			out[i].Errors = ce.Fields()
		case rd.err != nil:
			return nil, mapError(rd.err)
		}
	}
	return out, nil
}

// lookup is the answer of one read of contacts-svc.
type lookup struct {
	c   app.Contact
	err error
}

// concurrently runs fn once per distinct key, lookupWorkers at a time, and
// returns the answers by key. A failed lookup is an answer, not a reason to
// stop the others, so the group's functions never fail.
func concurrently(keys []string, fn func(string) lookup) map[string]lookup {
	out := make(map[string]lookup, len(keys))
	var distinct []string
	for _, k := range keys {
		if _, ok := out[k]; !ok {
			out[k] = lookup{}
			distinct = append(distinct, k)
		}
	}
	var (
		mu sync.Mutex
		g  errgroup.Group
	)
	g.SetLimit(lookupWorkers)
	for _, k := range distinct {
		g.Go(func() error {
			l := fn(k)
			mu.Lock()
			out[k] = l
			mu.Unlock()
			return nil
		})
	}
	_ = g.Wait() // the functions return nil
	return out
}

// mapBulkError turns a refused or failed bulk upsert into the domain's
// error: contacts-svc unreachable or unavailable is app.ErrUnavailable; a
// refusal (4xx) is a fault of this side, and a 500 a failure of the
// request's rows, reported as they are (500: retrying the same rows later
// would fail the same way).
func mapBulkError(err error) error {
	if !unavailable(err) {
		return fmt.Errorf("contacts-svc refused the bulk upsert: %w", err)
	}
	return fmt.Errorf("%w: %w", app.ErrUnavailable, err)
}
