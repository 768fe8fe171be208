package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/contacts-svc/internal/store"
	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/ids"
)

// validRow is a row that passed validation.
type validRow struct {
	index  int
	fields contact.Fields
}

// planned is a contact a chunk writes: new, or existing and changed.
type planned struct {
	c       contact.Contact
	created bool
	updated bool
}

// plan decides a chunk's rows against the live contacts they touch, in row
// order, before anything is written.
type plan struct {
	now        time.Time
	policy     contact.OnDuplicate
	phoneIDs   map[string]string   // E.164 → phone record id
	byExternal map[string]*planned // external id → live or planned contact
	phoneOwner map[string]string   // phone record id → live or planned contact id
	touched    []*planned          // in the order first touched
}

// newPlan loads what deciding rows needs: the live contacts with the rows'
// external ids, the rows' phone records (created when missing) and their
// live holders. Three statements, whatever the number of rows (two when
// every number is new).
func (a *App) newPlan(ctx context.Context, tx *store.Tx, policy contact.OnDuplicate, rows []validRow) (*plan, error) {
	p := &plan{now: a.timestamp(), policy: policy, byExternal: map[string]*planned{}, phoneOwner: map[string]string{}}
	if len(rows) == 0 {
		return p, nil
	}
	var externalIDs, phones []string
	for _, r := range rows {
		phones = append(phones, r.fields.Phone)
		if r.fields.ExternalID != nil {
			externalIDs = append(externalIDs, *r.fields.ExternalID)
		}
	}
	existing, err := tx.LiveByExternalIDs(ctx, externalIDs)
	if err != nil {
		return nil, err
	}
	for ext, c := range existing {
		p.byExternal[ext] = &planned{c: c}
	}
	var created map[string]bool
	if p.phoneIDs, created, err = tx.EnsurePhones(ctx, phones); err != nil {
		return nil, err
	}
	// A record created just now has no holder: only the older ones are
	// looked up (none, for a batch of new numbers).
	recordIDs := make([]string, 0, len(p.phoneIDs))
	for _, id := range p.phoneIDs {
		if !created[id] {
			recordIDs = append(recordIDs, id)
		}
	}
	if p.phoneOwner, err = tx.LivePhoneOwners(ctx, recordIDs); err != nil {
		return nil, err
	}
	return p, nil
}

// decide returns the outcome of each row and records the writes in the plan.
func (p *plan) decide(rows []validRow) []contact.RowResult {
	out := make([]contact.RowResult, 0, len(rows))
	for _, r := range rows {
		out = append(out, p.decideRow(r))
	}
	return out
}

func (p *plan) decideRow(r validRow) contact.RowResult {
	res := contact.RowResult{RowIndex: r.index}
	var target *planned
	if r.fields.ExternalID != nil {
		target = p.byExternal[*r.fields.ExternalID]
	}
	if target != nil && p.policy == contact.DuplicateSkip {
		res.Action, res.ContactID = contact.RowSkipped, target.c.ID
		return res
	}
	if target != nil && p.policy == contact.DuplicateFail {
		return failed(res, "external_id", contact.MsgExternalIDTaken)
	}
	phoneID := p.phoneIDs[r.fields.Phone]
	if owner, ok := p.phoneOwner[phoneID]; ok && (target == nil || owner != target.c.ID) {
		return failed(res, "phone", contact.MsgPhoneTaken)
	}
	if target == nil {
		target = &planned{created: true, c: contact.Contact{ID: ids.NewAt(p.now), CreatedAt: p.now}}
		p.touched = append(p.touched, target)
		res.Action = contact.RowCreated
	} else {
		if !target.created && !target.updated {
			p.touched = append(p.touched, target)
		}
		target.updated = !target.created
		delete(p.phoneOwner, target.c.PhoneID)
		res.Action = contact.RowUpdated
	}
	target.c.Fields, target.c.PhoneID, target.c.UpdatedAt = r.fields, phoneID, p.now
	p.phoneOwner[phoneID] = target.c.ID
	if r.fields.ExternalID != nil {
		p.byExternal[*r.fields.ExternalID] = target
	}
	res.ContactID = target.c.ID
	return res
}

func failed(res contact.RowResult, field, message string) contact.RowResult {
	res.Action, res.Errors = contact.RowFailed, map[string][]string{field: {message}}
	return res
}

// write saves the changed contacts and inserts the new ones, one statement
// each (updates first: a contact moving to another number frees its old one
// before a new contact takes it), and records their events when asked to.
// A unique index violated by a concurrent writer is ErrBulkConflict.
func (p *plan) write(ctx context.Context, tx *store.Tx, emitEvents bool) error {
	var inserts, updates []contact.Contact
	for _, t := range p.touched {
		t.c.TenantID = tx.TenantID()
		if t.created {
			inserts = append(inserts, t.c)
		} else {
			updates = append(updates, t.c)
		}
	}
	err := tx.SaveContacts(ctx, updates)
	if err == nil {
		err = tx.InsertContacts(ctx, inserts)
	}
	if errors.Is(err, contact.ErrPhoneTaken) || errors.Is(err, contact.ErrExternalIDTaken) {
		return fmt.Errorf("%w: %w", ErrBulkConflict, err)
	}
	if err != nil || !emitEvents {
		return err
	}
	for _, t := range p.touched {
		typ := events.TypeContactUpdated
		if t.created {
			typ = events.TypeContactCreated
		}
		if err := publish(ctx, tx, t.c, typ); err != nil {
			return err
		}
	}
	return nil
}
