package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paylane/paylane/transactions-svc/internal/campaign"
	"github.com/paylane/paylane/transactions-svc/internal/txn"
	"github.com/paylane/paylane/transactions-svc/internal/verr"
)

// validRow is a batch row that passed validation as a create.
type validRow struct {
	index   int
	in      txn.Input
	contact *NewContact
	fields  txn.Fields
}

// target is an item a chunk writes: new, or existing and changed.
type target struct {
	it      txn.Item
	created bool // inserted by this chunk
	updated bool // changed by a row (an existing item, or a new one again)
}

// plan decides a chunk's rows in row order, before anything is written,
// against the live items the rows' external ids name and the contacts
// answered so far.
type plan struct {
	d          txn.Direction
	policy     txn.OnDuplicate
	rules      txn.Rules
	now        time.Time
	existing   map[string]txn.Item   // live items by external id
	contacts   map[int]contactAnswer // by row index
	byExternal map[string]*target    // external id → existing or planned item
	touched    []*target             // in the order first touched
	results    []txn.RowResult       // of the rows decided
	need       []validRow            // rows that create but have no contact answer yet
	// noCampaign fails the rows that would create: options.campaign_id
	// names no campaign they may join.
	noCampaign bool
}

// settle decides the rows. A row that creates needs its contact, and which
// rows create depends on which earlier rows did (a row whose contact fails
// leaves its external id to the next row that has it), so deciding runs
// again with the contacts the previous round lacked until none is missing:
// one round and one contacts-svc call in the usual case.
func (a *App) settle(ctx context.Context, scope Scope, req BulkRequest, env bulkEnv, rows []validRow,
	existing map[string]txn.Item) (*plan, error) {
	contacts := map[int]contactAnswer{}
	for {
		p := &plan{d: req.Direction, policy: req.OnDuplicate, rules: env.rules, now: env.rules.Now,
			existing: existing, contacts: contacts, byExternal: map[string]*target{}, noCampaign: env.unassignable}
		for _, r := range rows {
			p.results = append(p.results, p.decide(r))
		}
		if len(p.need) == 0 {
			return p, nil
		}
		got, err := a.resolveContacts(ctx, scope, req, p.need)
		if err != nil {
			return nil, err
		}
		for i, ans := range got {
			contacts[i] = ans
		}
	}
}

// decide returns the outcome of a row and records its write in the plan.
func (p *plan) decide(r validRow) txn.RowResult {
	res := txn.RowResult{RowIndex: r.index}
	var t *target
	if r.fields.ExternalID != nil {
		t = p.target(*r.fields.ExternalID)
	}
	if t != nil {
		switch p.policy {
		case txn.DuplicateSkip:
			res.Action, res.ID = txn.RowSkipped, t.it.ID
			return res
		case txn.DuplicateFail:
			return failedRow(res, map[string][]string{"external_id": {txn.MsgExternalIDTaken}})
		}
		return p.update(res, t, r)
	}
	if p.noCampaign {
		// Before the contact is asked for, so none is created for a row
		// that cannot be written; the external id stays free for later rows.
		return failedRow(res, map[string][]string{"campaign_id": {campaign.MsgNotAssignable}})
	}
	ans, ok := p.contacts[r.index]
	if !ok {
		// Decided again once the contact is known; meanwhile later rows see
		// the external id as taken, as they will if the contact is found.
		p.need = append(p.need, r)
		p.register(r, &target{created: true, it: txn.Item{Status: txn.Pending}})
		res.Action = txn.RowCreated
		return res
	}
	if len(ans.errors) > 0 {
		return failedRow(res, ans.errors)
	}
	t = &target{created: true, it: newItem(p.d, ans.contact, r.fields, p.now)}
	p.touched = append(p.touched, t)
	p.register(r, t)
	res.Action, res.ID = txn.RowCreated, t.it.ID
	return res
}

// target returns the planned or live item with an external id, or nil.
func (p *plan) target(externalID string) *target {
	if t, ok := p.byExternal[externalID]; ok {
		return t
	}
	if it, ok := p.existing[externalID]; ok {
		t := &target{it: it}
		p.byExternal[externalID] = t
		return t
	}
	return nil
}

// register makes t the item later rows with r's external id meet.
func (p *plan) register(r validRow, t *target) {
	if r.fields.ExternalID != nil {
		p.byExternal[*r.fields.ExternalID] = t
	}
}

// update applies a row to an existing or planned item by the PUT rules: in
// draft, scheduled and pending only, the mutable fields replaced. The
// contact of the row is not applied (a PUT cannot change it).
func (p *plan) update(res txn.RowResult, t *target, r validRow) txn.RowResult {
	it := t.it
	if err := move(&it, txn.Update); err != nil {
		msg := fmt.Sprintf("The %s with this external_id is %s and cannot be updated.", p.d, t.it.Status)
		return failedRow(res, map[string][]string{"external_id": {msg}})
	}
	in := r.in
	in.ContactID, in.ContactExternalID, in.ContactObject = nil, nil, false
	f, err := txn.ValidateReplace(it, in, p.rules)
	var ve *verr.Error
	if errors.As(err, &ve) {
		return failedRow(res, ve.Fields)
	}
	setFields(&it, f)
	it.UpdatedAt = p.now
	if !t.created && !t.updated {
		p.touched = append(p.touched, t)
	}
	t.it, t.updated = it, true
	res.Action, res.ID = txn.RowUpdated, it.ID
	return res
}

// failedRow marks res failed with errs.
func failedRow(res txn.RowResult, errs map[string][]string) txn.RowResult {
	res.Action, res.Errors, res.ID = txn.RowFailed, errs, ""
	return res
}
