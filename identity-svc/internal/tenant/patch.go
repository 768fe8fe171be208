package tenant

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/currency"
	"golang.org/x/text/language"
)

// Patch is a create body or a partial update of a tenant. Absent fields keep
// their value; sms_number and limits may be null (no number, deployment
// default).
type Patch struct {
	Name            Nullable[string] `json:"name"`
	DefaultCurrency Nullable[string] `json:"default_currency"`
	DefaultRegion   Nullable[string] `json:"default_region"`
	SMSNumber       Nullable[string] `json:"sms_number"`
	Flags           FlagsPatch       `json:"flags"`
	Limits          LimitsPatch      `json:"limits"`
}

// FlagsPatch is a partial update of the flags.
type FlagsPatch struct {
	AIGateway Nullable[bool] `json:"ai_gateway"`
	OptIn     Nullable[bool] `json:"opt_in"`
}

// LimitsPatch is a partial update of the limit overrides; null restores the
// deployment default.
type LimitsPatch struct {
	APIRequestsPerMinute      Nullable[int]   `json:"api_requests_per_minute"`
	BatchSubmissionsPerMinute Nullable[int]   `json:"batch_submissions_per_minute"`
	BatchesInFlight           Nullable[int]   `json:"batches_in_flight"`
	AIMaxAmount               Nullable[int64] `json:"ai_max_amount"`
	AIDailyAmount             Nullable[int64] `json:"ai_daily_amount"`
}

var e164 = regexp.MustCompile(`^\+[1-9][0-9]{6,14}$`)

// Validate checks the fields the patch carries and returns the messages per
// field (dotted paths for nested fields), or nil when the patch is valid.
// creating makes the name required.
func (p Patch) Validate(creating bool) map[string][]string {
	v := validation{}
	switch {
	case creating && !p.Name.Set, p.Name.Null, p.Name.Set && strings.TrimSpace(p.Name.Value) == "":
		v.add("name", "The name field is required.")
	case utf8.RuneCountInString(p.Name.Value) > MaxNameLength:
		v.add("name", fmt.Sprintf("The name field must not be greater than %d characters.", MaxNameLength))
	}
	if p.DefaultCurrency.Set && !validCurrency(p.DefaultCurrency) {
		v.add("default_currency", "The default currency field must be an ISO 4217 currency code (three upper-case letters).")
	}
	if p.DefaultRegion.Set && !validRegion(p.DefaultRegion) {
		v.add("default_region", "The default region field must be an ISO 3166-1 alpha-2 country code (two upper-case letters).")
	}
	if p.SMSNumber.Present() && p.SMSNumber.Value != "" && !e164.MatchString(p.SMSNumber.Value) {
		v.add("sms_number", "The sms number field must be a phone number in E.164 format.")
	}
	v.boolean("flags.ai_gateway", p.Flags.AIGateway)
	v.boolean("flags.opt_in", p.Flags.OptIn)
	v.limit("limits.api_requests_per_minute", p.Limits.APIRequestsPerMinute)
	v.limit("limits.batch_submissions_per_minute", p.Limits.BatchSubmissionsPerMinute)
	v.limit("limits.batches_in_flight", p.Limits.BatchesInFlight)
	v.amount("limits.ai_max_amount", p.Limits.AIMaxAmount)
	v.amount("limits.ai_daily_amount", p.Limits.AIDailyAmount)
	return v.result()
}

func validCurrency(n Nullable[string]) bool {
	if n.Null || len(n.Value) != 3 || strings.ToUpper(n.Value) != n.Value {
		return false
	}
	_, err := currency.ParseISO(n.Value)
	return err == nil
}

func validRegion(n Nullable[string]) bool {
	if n.Null || len(n.Value) != 2 || strings.ToUpper(n.Value) != n.Value {
		return false
	}
	r, err := language.ParseRegion(n.Value)
	return err == nil && r.IsCountry() && r.String() == n.Value
}

// Apply returns t with the patch applied. The patch must have passed
// Validate.
func (p Patch) Apply(t Tenant) Tenant {
	if p.Name.Present() {
		t.Name = strings.TrimSpace(p.Name.Value)
	}
	if p.DefaultCurrency.Present() {
		t.DefaultCurrency = p.DefaultCurrency.Value
	}
	if p.DefaultRegion.Present() {
		t.DefaultRegion = p.DefaultRegion.Value
	}
	if p.SMSNumber.Set {
		t.SMSNumber = p.SMSNumber.Value // null decodes to "": no number
	}
	setBool(&t.Flags.AIGateway, p.Flags.AIGateway)
	setBool(&t.Flags.OptIn, p.Flags.OptIn)
	setLimit(&t.Limits.APIRequestsPerMinute, p.Limits.APIRequestsPerMinute)
	setLimit(&t.Limits.BatchSubmissionsPerMinute, p.Limits.BatchSubmissionsPerMinute)
	setLimit(&t.Limits.BatchesInFlight, p.Limits.BatchesInFlight)
	setLimit(&t.Limits.AIMaxAmount, p.Limits.AIMaxAmount)
	setLimit(&t.Limits.AIDailyAmount, p.Limits.AIDailyAmount)
	return t
}

func setBool(dst *bool, n Nullable[bool]) {
	if n.Present() {
		*dst = n.Value
	}
}

func setLimit[T int | int64](dst *T, n Nullable[T]) {
	switch {
	case n.Null:
		*dst = 0
	case n.Set:
		*dst = n.Value
	}
}

type validation map[string][]string

func (v validation) add(field, msg string) { v[field] = append(v[field], msg) }

func (v validation) boolean(field string, n Nullable[bool]) {
	if n.Null {
		v.add(field, fmt.Sprintf("The %s field must be true or false.", field))
	}
}

func (v validation) limit(field string, n Nullable[int]) {
	if n.Present() && (n.Value < 1 || n.Value > MaxLimit) {
		v.add(field, fmt.Sprintf("The %s field must be a positive integer no greater than %d.", field, MaxLimit))
	}
}

// amount checks a guardrail in minor units; null removes it.
func (v validation) amount(field string, n Nullable[int64]) {
	if n.Present() && (n.Value < 1 || n.Value > MaxAIAmount) {
		v.add(field, fmt.Sprintf("The %s field must be a positive integer amount in minor units no greater than %d, or null for none.", field, int64(MaxAIAmount)))
	}
}

func (v validation) result() map[string][]string {
	if len(v) == 0 {
		return nil
	}
	return v
}
