package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/batch-svc/internal/app"
	"github.com/paylane/paylane/batch-svc/internal/batch"
	"github.com/paylane/paylane/batch-svc/internal/wire"
	"github.com/paylane/paylane/libs/apierr"
	"github.com/paylane/paylane/libs/authz"
	"github.com/paylane/paylane/libs/httpx"
	"github.com/paylane/paylane/libs/idempotency"
)

// envelopeBody is a submission's body as read first: the options are
// decoded on their own, so their problems name options.<field>.
type envelopeBody struct {
	Items httpx.Items `json:"items"` // checked per row by the owning service

	Options json.RawMessage `json:"options"`
}

// submit answers POST /api/v1/<type>/batch: 202 {data: header}.
func (h *Handlers) submit(t batch.Type) idempotency.Handler {
	return func(c *fiber.Ctx, tx idempotency.Tx) error {
		var body envelopeBody
		if err := httpx.Decode(c, &body); err != nil {
			return err
		}
		opts, err := decodeOptions(body.Options)
		if err != nil {
			return withItemProblems(err, t, body.Items)
		}
		claims := authz.ClaimsFrom(c)
		caller := app.Caller{
			TenantID:             claims.TenantID,
			Token:                bearer(c),
			SubmissionsPerMinute: claims.Limits.BatchSubmissionsPerMinute,
			InFlight:             claims.Limits.BatchesInFlight,
			Tx:                   tx,
		}
		hdr, err := h.app.Submit(c.UserContext(), caller, t, batch.Envelope{Items: body.Items, Options: opts})
		if err != nil {
			return err
		}
		return httpx.Data(c, http.StatusAccepted, wire.NewHeader(hdr, baseURL(c)))
	}
}

// decodeOptions reads the options object strictly: an unknown option or a
// value of the wrong type is 422 naming options.<field>.
func decodeOptions(raw json.RawMessage) (*batch.OptionsInput, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	if raw[0] != '{' {
		return nil, apierr.Field("options", "The options field must be an object.")
	}
	var in batch.OptionsInput
	if err := httpx.DecodeBytes(raw, &in); err != nil {
		return nil, underOptions(err)
	}
	return &in, nil
}

// underOptions names the fields of an options problem as options.<field>.
func underOptions(err error) error {
	var ae *apierr.Error
	fields, ok := map[string][]string(nil), false
	if errors.As(err, &ae) {
		fields, ok = ae.Details.(map[string][]string)
	}
	if !ok || ae.Code != apierr.CodeValidationFailed {
		return apierr.Field("options", "The options field contains an invalid value.")
	}
	out := make(map[string][]string, len(fields))
	for f, msgs := range fields {
		name := "options." + f
		if f == "body" {
			name = "options"
		}
		for _, m := range msgs {
			out[name] = append(out[name], strings.Replace(m, "The "+f+" field", "The "+name+" field", 1))
		}
	}
	return apierr.Validation(out)
}

// bearer is the internal token the request came with.
func bearer(c *fiber.Ctx) string {
	tok, _ := strings.CutPrefix(c.Get(fiber.HeaderAuthorization), "Bearer ")
	return tok
}

// withItemProblems adds the items' envelope problems to an options error,
// so one 422 names everything wrong with the envelope.
func withItemProblems(optionsErr error, t batch.Type, items []json.RawMessage) error {
	var ae *apierr.Error
	var ve *batch.ValidationError
	if !errors.As(optionsErr, &ae) || ae.Code != apierr.CodeValidationFailed {
		return optionsErr
	}
	fields, ok := ae.Details.(map[string][]string)
	if _, err := batch.Validate(t, batch.Envelope{Items: items}); !ok || !errors.As(err, &ve) {
		return optionsErr
	}
	merged := make(map[string][]string, len(fields)+len(ve.Fields))
	for f, msgs := range ve.Fields {
		merged[f] = msgs
	}
	for f, msgs := range fields {
		merged[f] = append(merged[f], msgs...)
	}
	return apierr.Validation(merged)
}
