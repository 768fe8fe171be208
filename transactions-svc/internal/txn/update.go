package txn

import (
	"time"

	"github.com/paylane/paylane/transactions-svc/internal/verr"
)

// ValidateReplace checks a PUT body against the item it replaces. The
// contact cannot change (contact_id may be repeated as it is); send_at
// follows the state: free in draft, required and in the future while
// scheduled, unchangeable once the item is pending (the link went out).
// Amount is required as on create; absent optional fields are cleared.
func ValidateReplace(it Item, in Input, r Rules) (Fields, error) {
	p := verr.Problems{}
	if in.ContactObject {
		p.Add("contact", "The contact field cannot be changed.")
	}
	if in.ContactID != nil && *in.ContactID != it.ContactID {
		p.Add("contact_id", "The contact_id field cannot be changed.")
	}
	f := fields(p, in, r)
	if p.Has("send_at") {
		return f, p.Err()
	}
	switch it.Status {
	case Scheduled:
		if f.SendAt == nil {
			p.Add("send_at", "The send_at field is required while the "+string(it.Direction)+" is scheduled.")
		} else if !f.SendAt.After(r.Now) {
			p.Add("send_at", "The send_at field must be a date after now.")
		}
	case Draft:
		if f.SendAt != nil && !f.SendAt.After(r.Now) {
			p.Add("send_at", "The send_at field must be a date after now.")
		}
	default:
		if !sameTime(f.SendAt, it.SendAt) {
			p.Add("send_at", "The send_at field cannot be changed once the "+string(it.Direction)+" is sent.")
		}
		f.SendAt = it.SendAt
	}
	return f, p.Err()
}

// sameTime reports whether two optional instants are equal (both absent,
// or the same instant).
func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(*b)
}
