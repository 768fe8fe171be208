package app

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/paylane/paylane/contacts-svc/internal/contact"
	"github.com/paylane/paylane/contacts-svc/internal/store"
	"github.com/paylane/paylane/libs/phone"
)

// Search limits.
const (
	DefaultSearchLimit = 10
	MaxSearchLimit     = 50
	maxSearchName      = 201 // a first and a last name with a space
)

// SearchQuery looks for live contacts: Name by trigram similarity, Phone
// (any format; read in the tenant's region) and Email exactly. At least one
// is needed. Limit 0 means DefaultSearchLimit.
type SearchQuery struct {
	Name, Phone, Email string
	Limit              int
}

// SearchContacts returns candidates, best first, for the AI gateway's
// resolve-contact.
func (a *App) SearchContacts(ctx context.Context, scope Scope, q SearchQuery) ([]contact.Candidate, error) {
	s, err := searchOf(q, scope.Region)
	if err != nil {
		return nil, err
	}
	var list []contact.Candidate
	err = a.store.Read(ctx, scope.TenantID, func(tx *store.Tx) error {
		var err error
		list, err = tx.SearchContacts(ctx, s)
		return err
	})
	return list, err
}

// searchOf validates a query into the store's terms.
func searchOf(q SearchQuery, region string) (store.Search, error) {
	s := store.Search{Name: strings.TrimSpace(q.Name), Email: strings.TrimSpace(q.Email), Limit: q.Limit}
	problems := map[string][]string{}
	if s.Name == "" && strings.TrimSpace(q.Phone) == "" && s.Email == "" {
		problems["name"] = []string{"The name field is required when neither phone nor email is given."}
	}
	if utf8.RuneCountInString(s.Name) > maxSearchName {
		problems["name"] = []string{"The name field must not be greater than 201 characters."}
	}
	if p := strings.TrimSpace(q.Phone); p != "" {
		e164, err := phone.Normalize(p, region)
		if err != nil {
			problems["phone"] = []string{"The phone field must be a valid phone number."}
		}
		s.Phone = e164
	}
	switch {
	case s.Limit == 0:
		s.Limit = DefaultSearchLimit
	case s.Limit < 0 || s.Limit > MaxSearchLimit:
		problems["limit"] = []string{"The limit must be between 1 and 50."}
	}
	if len(problems) > 0 {
		return store.Search{}, &contact.ValidationError{Fields: problems}
	}
	return s, nil
}
