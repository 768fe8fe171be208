// Package obs holds what every service needs to be observed: the JSON
// logger, the Prometheus registry and HTTP metrics, the internal listener
// (/healthz, /readyz, /metrics, /debug/pprof) and redaction of phone numbers
// and secrets for logs.
package obs

import (
	"context"
	"io"
	"log/slog"
	"strings"

	"github.com/paylane/paylane/libs/reqid"
)

// NewLogger returns a JSON logger that tags every record with the service
// name, and a record logged with a context (InfoContext, ...) with the
// request id and trace id the context carries (request_id, trace_id). As a
// safety net it masks phone numbers in string values and errors, and hides
// attributes whose key names a secret (see secretKey).
func NewLogger(service string, w io.Writer, level slog.Level) *slog.Logger {
	h := slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level, ReplaceAttr: redactAttr})
	return slog.New(contextHandler{h}).With(slog.String("service", service))
}

// contextHandler adds the request id and trace id of a record's context.
type contextHandler struct{ slog.Handler }

func (h contextHandler) Handle(ctx context.Context, r slog.Record) error {
	if ctx != nil {
		if id := reqid.From(ctx); id != "" && !hasAttr(r, "request_id") {
			r.AddAttrs(slog.String("request_id", id))
		}
		if id := TraceID(ctx); id != "" {
			r.AddAttrs(slog.String("trace_id", id))
		}
	}
	return h.Handler.Handle(ctx, r)
}

// hasAttr reports whether the record already carries key (a caller that
// logs the request id itself), so the line never holds it twice.
func hasAttr(r slog.Record, key string) bool {
	found := false
	r.Attrs(func(a slog.Attr) bool {
		found = a.Key == key
		return !found
	})
	return found
}

func (h contextHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return contextHandler{h.Handler.WithAttrs(attrs)}
}

func (h contextHandler) WithGroup(name string) slog.Handler {
	return contextHandler{h.Handler.WithGroup(name)}
}

// redactAttr is the ReplaceAttr hook of NewLogger.
func redactAttr(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.LevelKey {
		// The same text slog writes for a Level, without the JSON encoder
		// it runs for any value once a ReplaceAttr hook is set.
		if l, ok := a.Value.Any().(slog.Level); ok {
			return slog.String(a.Key, l.String())
		}
	}
	if secretKey(a.Key) {
		return slog.String(a.Key, "redacted")
	}
	switch a.Value.Kind() {
	case slog.KindString:
		if s := a.Value.String(); mayHoldPhone(s) {
			return slog.String(a.Key, RedactPhone(s))
		}
	case slog.KindAny:
		if err, ok := a.Value.Any().(error); ok {
			return slog.String(a.Key, RedactPhone(err.Error()))
		}
	}
	return a
}

// secretKey reports whether an attribute key names a secret: token,
// internal_token and webhook_secret do; token_id does not.
func secretKey(k string) bool {
	k = strings.ToLower(k)
	switch k {
	case "token", "secret", "password", "authorization", "signature", "api_key":
		return true
	}
	for _, suffix := range []string{"_token", "_secret", "_password", "_signature"} {
		if strings.HasSuffix(k, suffix) {
			return true
		}
	}
	return false
}
