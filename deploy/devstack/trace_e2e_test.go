package devstack

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/ids"
	"github.com/paylane/paylane/libs/obs"
)

// TestTraceCrossesTheGatewayTheServiceAndKafka creates a receivable through
// the gateway and follows one trace id along its path: the gateway's access
// line, transactions-svc's access line for the same request, the
// notification.requested event's Kafka header (written through the outbox),
// optin-svc's handling of that event, and transactions-svc's access line
// for optin-svc's internal read of the notification (in the trace of
// optin-svc's batch: the request's, unless the batch mixed traces). Every
// access line also names the tenant and no line carries the phone number.
func TestTraceCrossesTheGatewayTheServiceAndKafka(t *testing.T) {
	serviceLogs := newLogBuffer(t)
	st := startStackWith(t, tempRoot(t), func(o *Options) {
		o.ServiceLog, o.LogLevel = serviceLogs, slog.LevelDebug
	})
	x := newTransactionsE2E(t, st.info)
	defer func() {
		x.hc.CloseIdleConnections()
		st.stop(t)
	}()

	_, e164 := x.phone()
	contact := x.create(t, x.token, fmt.Sprintf(`{"first_name":"Ada","phone":%q}`, e164))
	requestID := ids.New()
	r := x.call(t, http.MethodPost, "/api/v1/receivables", x.token,
		fmt.Sprintf(`{"contact_id":%q,"amount":4200,"description":"Traced"}`, contact.ID),
		map[string]string{"X-Request-Id": requestID})
	x.item(t, r, http.StatusCreated)

	// The gateway's access line gives the trace.
	gw := awaitLine(t, serviceLogs, func(l logLine) bool {
		return l.str("service") == "gateway" && l.str("msg") == "request" && l.str("request_id") == requestID
	})
	trace := gw.str("trace_id")
	if len(trace) != 32 {
		t.Fatalf("the gateway's access line has no trace id: %v", gw)
	}
	if gw.str("route") != "/api/v1/receivables" || gw.num("status") != http.StatusCreated ||
		gw.str("method") != http.MethodPost || gw.str("tenant") != st.info.DemoTenantID {
		t.Errorf("gateway access line = %v; want POST /api/v1/receivables 201 of the demo tenant", gw)
	}
	svc := awaitLine(t, serviceLogs, func(l logLine) bool {
		return l.str("service") == "transactions-svc" && l.str("msg") == "request" && l.str("request_id") == requestID
	})
	// The service's route is its router's pattern (a group's root ends in "/").
	if svc.str("trace_id") != trace || strings.TrimSuffix(svc.str("route"), "/") != "/api/v1/receivables" ||
		svc.str("tenant") != st.info.DemoTenantID {
		t.Errorf("transactions-svc access line = %v; want route /api/v1/receivables, the demo tenant and trace %s", svc, trace)
	}

	// The event the request wrote carries the trace in its Kafka header.
	msg := awaitEvent(t, st.info.Brokers, events.TopicTransactions, func(env events.Envelope) bool {
		return env.RequestID == requestID && env.Type == "notification.requested"
	})
	var env events.Envelope
	if err := json.Unmarshal(msg.Value, &env); err != nil {
		t.Fatal(err)
	}
	var header string
	for _, h := range msg.Headers {
		if h.Key == "traceparent" {
			header = string(h.Value)
		}
	}
	if got := obs.TraceIDOf(header); got != trace {
		t.Errorf("notification.requested traceparent = %q (trace %q), want trace %s", header, got, trace)
	}

	// optin-svc handles it in the same trace, and reads the notification
	// from transactions-svc in it too.
	handled := awaitLine(t, serviceLogs, func(l logLine) bool {
		return l.str("service") == "optin-svc" && l.str("msg") == "event handled" && l.str("event_id") == env.ID
	})
	if handled.str("trace_id") != trace {
		t.Errorf("optin-svc handled %s in trace %q, want %s", env.ID, handled.str("trace_id"), trace)
	}
	// optin-svc consumes in batches: a batch whose events all come from this
	// request continues its trace; a batch that also holds another
	// request's event (the broker decides what arrives together) runs in a
	// trace of its own linked to each. Either way the read of the
	// notification is in the batch's trace.
	batchTrace := handled.str("batch_trace_id")
	if batchTrace != trace {
		awaitLine(t, serviceLogs, func(l logLine) bool {
			return l.str("service") == "optin-svc" && l.str("msg") == "event handled" &&
				l.str("batch_trace_id") == batchTrace && l.str("trace_id") != trace
		})
	}
	awaitLine(t, serviceLogs, func(l logLine) bool {
		return l.str("service") == "transactions-svc" && l.str("msg") == "request" &&
			strings.HasPrefix(l.str("route"), "/internal/v1/notifications") && l.str("trace_id") == batchTrace
	})
	x.awaitSMS(t, e164, "payment_link")

	if digits := strings.TrimPrefix(e164, "+"); strings.Contains(serviceLogs.String(), digits) {
		t.Errorf("the logs carry the phone number %s", e164)
	}
}

// logLine is one JSON line of the services' logs.
type logLine map[string]any

func (l logLine) str(k string) string { s, _ := l[k].(string); return s }

func (l logLine) num(k string) int { f, _ := l[k].(float64); return int(f) }

// awaitLine waits up to 30 s for a line of logs that match accepts.
func awaitLine(t *testing.T, logs *logBuffer, match func(logLine) bool) logLine {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		for _, raw := range strings.Split(logs.String(), "\n") {
			var l logLine
			if json.Unmarshal([]byte(raw), &l) == nil && match(l) {
				return l
			}
		}
	}
	t.Fatal("no such log line after 30 s")
	return nil
}

// awaitEvent reads topic from its start as a group of its own until an
// event matches.
func awaitEvent(t *testing.T, brokers []string, topic string, match func(events.Envelope) bool) kafka.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := kafka.NewReader(kafka.ReaderConfig{Brokers: brokers, GroupID: "trace-e2e-" + ids.New(), GroupTopics: []string{topic},
		StartOffset: kafka.FirstOffset, MaxWait: 200 * time.Millisecond})
	defer r.Close()
	for {
		m, err := r.ReadMessage(ctx)
		if err != nil {
			t.Fatalf("reading %s: %v", topic, err)
		}
		var env events.Envelope
		if json.Unmarshal(m.Value, &env) == nil && match(env) {
			return m
		}
	}
}
