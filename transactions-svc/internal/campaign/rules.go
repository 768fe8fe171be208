package campaign

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/paylane/paylane/transactions-svc/internal/txn"
)

// Rule operators.
const (
	OpEq  = "eq"
	OpGte = "gte"
	OpLte = "lte"
	OpIn  = "in"
)

// customKeyRE is the shape of a custom field key in a rule's field.
func customKeyRE() *regexp.Regexp { return regexp.MustCompile(`^custom_fields\.[a-z][a-z0-9_]{0,63}$`) }

// checkRule returns the sub-field at fault and the end of its message
// ("is required."), or "" when the rule is well formed.
func checkRule(field, op string, value json.RawMessage) (string, string) {
	switch {
	case field != "amount" && field != "currency" && !customKeyRE().MatchString(field):
		return "field", "must be amount, currency or custom_fields.<key>."
	case op != OpEq && op != OpGte && op != OpLte && op != OpIn:
		return "op", "must be eq, gte, lte or in."
	case len(value) == 0 || string(value) == "null":
		return "value", "is required."
	}
	var values []json.RawMessage
	if op == OpIn {
		if json.Unmarshal(value, &values) != nil || len(values) == 0 {
			return "value", "must be a non-empty array for op in."
		}
	} else {
		values = []json.RawMessage{value}
	}
	for _, v := range values {
		if msg := checkValue(field, op, bytes.TrimSpace(v)); msg != "" {
			return "value", msg
		}
	}
	return "", ""
}

func checkValue(field, op string, v json.RawMessage) string {
	switch field {
	case "amount":
		var n int64
		if json.Unmarshal(v, &n) != nil {
			return "must be an integer amount in minor units."
		}
	case "currency":
		var s string
		if op == OpGte || op == OpLte {
			return "cannot be compared with gte or lte for currency."
		}
		if json.Unmarshal(v, &s) != nil || !txn.KnownCurrency(s) {
			return "must be an ISO 4217 currency code."
		}
	default:
		if len(v) == 0 || v[0] == '{' || v[0] == '[' {
			return "must be a string, number or boolean."
		}
	}
	return ""
}

// Subject is what the rules of a campaign look at.
type Subject struct {
	Amount       int64
	Currency     string
	CustomFields map[string]json.RawMessage
}

// MalformedRuleError is a stored rule that breaks the rules' shape (one
// written before the checks, or by hand): evaluating it is an error, never a
// silent "does not match", so the request fails and the error is logged
// rather than a campaign quietly never assigned.
type MalformedRuleError struct {
	CampaignID string
	Index      int
	Field      string // the rule's part at fault: field, op or value
	Problem    string
}

func (e *MalformedRuleError) Error() string {
	return fmt.Sprintf("campaign: stored rule %d of campaign %s is malformed: %s %s", e.Index, e.CampaignID, e.Field, e.Problem)
}

// Matches reports whether every rule of c holds for s (a campaign without
// rules matches everything). A malformed rule is a *MalformedRuleError.
func (c Campaign) Matches(s Subject) (bool, error) {
	for i, r := range c.Rules {
		if sub, msg := checkRule(r.Field, r.Op, bytes.TrimSpace(r.Value)); msg != "" {
			return false, &MalformedRuleError{CampaignID: c.ID, Index: i, Field: sub, Problem: msg}
		}
	}
	for _, r := range c.Rules {
		if !r.holds(s) {
			return false, nil
		}
	}
	return true, nil
}

// holds reports whether the well-formed rule r holds for s.
func (r Rule) holds(s Subject) bool {
	var actual json.RawMessage
	switch {
	case r.Field == "amount":
		actual, _ = json.Marshal(s.Amount)
	case r.Field == "currency":
		actual, _ = json.Marshal(s.Currency)
	default:
		v, ok := s.CustomFields[strings.TrimPrefix(r.Field, "custom_fields.")]
		if !ok {
			return false
		}
		actual = v
	}
	switch r.Op {
	case OpIn:
		var values []json.RawMessage
		_ = json.Unmarshal(r.Value, &values) // checkRule made sure it is a non-empty array
		for _, v := range values {
			if cmpJSON(actual, v) == 0 {
				return true
			}
		}
		return false
	case OpGte:
		c := cmpJSON(actual, r.Value)
		return c == 0 || c == 1
	case OpLte:
		c := cmpJSON(actual, r.Value)
		return c == 0 || c == -1
	}
	return cmpJSON(actual, r.Value) == 0
}

// cmpJSON compares two scalar JSON values: numbers numerically, strings
// lexically (dates in YYYY-MM-DD order correctly), booleans for equality.
// It answers -1, 0 or 1, or 2 when they cannot be compared.
func cmpJSON(a, b json.RawMessage) int {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return 2
	}
	switch xv := x.(type) {
	case float64:
		if yv, ok := y.(float64); ok {
			return order(xv < yv, xv > yv)
		}
	case string:
		if yv, ok := y.(string); ok {
			return order(xv < yv, xv > yv)
		}
	case bool:
		if yv, ok := y.(bool); ok && xv == yv {
			return 0
		}
	}
	return 2
}

func order(less, greater bool) int {
	switch {
	case less:
		return -1
	case greater:
		return 1
	}
	return 0
}

// Select returns the first campaign of list (ordered by priority, highest
// first, then oldest first) that is assignable to direction d and whose rules
// hold for s. A malformed rule of a campaign it reaches is an error.
func Select(list []Campaign, d txn.Direction, s Subject) (Campaign, bool, error) {
	for _, c := range list {
		if c.Assignable(d) != nil {
			continue
		}
		ok, err := c.Matches(s)
		if err != nil {
			return Campaign{}, false, err
		}
		if ok {
			return c, true, nil
		}
	}
	return Campaign{}, false, nil
}

// Render fills a step message's placeholders.
func Render(message, firstName, amount, link string) string {
	return placeholderRE().ReplaceAllStringFunc(message, func(m string) string {
		name := strings.TrimSpace(strings.Trim(m, "{}"))
		switch name {
		case "first_name":
			return firstName
		case "amount":
			return amount
		case "link":
			return link
		}
		return m
	})
}
