package httpx

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/ids"
)

// Query returns the text query parameter name, "" when it is absent. A
// value that is not valid UTF-8 or holds U+0000 (sent as %FF or %00) can
// match nothing and Postgres refuses it, so it is 422 validation_failed
// naming the parameter. The value is a copy, safe to keep after the
// handler returns.
func Query(c *fiber.Ctx, name string) (string, error) {
	v, _, err := QueryValue(c, name)
	return v, err
}

// QueryValue is Query that also reports whether the parameter was sent at
// all (?x= is sent and empty).
func QueryValue(c *fiber.Ctx, name string) (string, bool, error) {
	args := c.Context().QueryArgs()
	if !args.Has(name) {
		return "", false, nil
	}
	raw := args.Peek(name)
	if err := CheckText(name, raw); err != nil {
		return "", true, err
	}
	return string(raw), true, nil
}

// CheckText is the rule Query applies, for text from elsewhere in a request
// (a path segment after unescaping, a form value): 422 naming field when the
// bytes are not valid UTF-8 or hold U+0000.
func CheckText(field string, b []byte) error {
	if !utf8.Valid(b) {
		return apierr.Field(field, "The "+field+" field must be valid UTF-8 text.")
	}
	if strings.IndexByte(string(b), 0) >= 0 {
		return apierr.Field(field, "The "+field+" field must not contain the NUL character.")
	}
	return nil
}

// QueryReader reads several text query parameters and collects their problems,
// so a handler reads its filters in one go and one 422 names every bad
// parameter:
//
//	q := httpx.Queries(c)
//	f := Filter{Status: q.Text("status"), ContactID: q.Text("contact_id")}
//	if err := q.Err(); err != nil { return err }
type QueryReader struct {
	c        *fiber.Ctx
	problems map[string][]string
}

// Queries returns a reader of c's query parameters.
func Queries(c *fiber.Ctx) *QueryReader { return &QueryReader{c: c} }

// Text returns the parameter as Query does; a bad value reads as "" and is
// kept for Err.
func (q *QueryReader) Text(name string) string {
	v, _, err := QueryValue(q.c, name)
	if err != nil {
		q.add(err)
		return ""
	}
	return v
}

// IDs reads name as a comma-separated list of 1 to most ids (libs/ids),
// each the id of a kind ("contact": "Each of the ids must be a contact
// id."), for a route that reads many items by id at once. It returns them
// sorted, each once; an absent or empty list, more than most ids or one
// that is not an id reads as nil and is kept for Err, naming name.
func (q *QueryReader) IDs(name string, most int, kind string) []string {
	raw := q.Text(name)
	if _, bad := q.problems[name]; bad {
		return nil
	}
	var list []string
	if raw != "" {
		list = strings.Split(raw, ",")
	}
	switch {
	case len(list) == 0:
		q.add(apierr.Field(name, "The "+name+" field is required."))
		return nil
	case len(list) > most:
		q.add(apierr.Field(name, "The "+name+" field must not have more than "+strconv.Itoa(most)+" items."))
		return nil
	}
	for _, id := range list {
		if !ids.Valid(id) {
			q.add(apierr.Field(name, "Each of the "+name+" must be a "+kind+" id."))
			return nil
		}
	}
	return slices.Compact(slices.Sorted(slices.Values(list)))
}

func (q *QueryReader) add(err error) {
	ae, ok := err.(*apierr.Error)
	details, _ := ae.Details.(map[string][]string)
	if !ok || details == nil {
		return
	}
	if q.problems == nil {
		q.problems = map[string][]string{}
	}
	for f, m := range details {
		q.problems[f] = append(q.problems[f], m...)
	}
}

// Err is the 422 naming every bad parameter read so far, or nil.
func (q *QueryReader) Err() error {
	if q.problems == nil {
		return nil
	}
	return apierr.Validation(q.problems)
}
