package dispatch_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/paylane/paylane/libs/idempotency"
	"github.com/paylane/paylane/webhook-svc/internal/dispatch"
	"github.com/paylane/paylane/webhook-svc/internal/testenv"
	"github.com/paylane/paylane/webhook-svc/internal/webhook"
)

// Where a prohibited webhook URL is stopped.
const (
	atCreate = "create" // 422 validation_failed on url: nothing is stored
	atDial   = "dial"   // stored; the delivery fails as not allowed and nothing is sent
)

// trap is a TCP listener on 127.0.0.1 that counts the connections it gets:
// every loopback row points at it, so a guard that let one through shows.
type trap struct {
	ln       net.Listener
	accepted atomic.Int64
}

func newTrap(t *testing.T) *trap {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tr := &trap{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			tr.accepted.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return tr
}

func (tr *trap) port() string { return fmt.Sprint(tr.ln.Addr().(*net.TCPAddr).Port) }

// dns stands in for DNS: fixed answers for the names of the table, a name
// that answers a public address until rebind is called and loopback after
// (DNS rebinding), loopback for localhost. and .localhost names (RFC 6761),
// and the system resolver for anything else (plain localhost, from
// /etc/hosts).
type dns struct {
	mu       sync.Mutex
	rebound  bool
	lookedUp []string
}

func (d *dns) rebind() { d.mu.Lock(); d.rebound = true; d.mu.Unlock() }

func (d *dns) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	d.mu.Lock()
	d.lookedUp = append(d.lookedUp, host)
	rebound := d.rebound
	d.mu.Unlock()
	if host == "localhost." || strings.HasSuffix(strings.TrimSuffix(host, "."), ".localhost") {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("::1")}, nil
	}
	switch strings.TrimSuffix(host, ".") {
	case "rebind.example.com":
		if !rebound {
			return []netip.Addr{netip.MustParseAddr("93.184.215.14")}, nil
		}
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	case "metadata.google.internal": // what it resolves to inside Google Cloud
		return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
	case "127.0.0.1.nip.io":
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	case "ten.example.com":
		return []netip.Addr{netip.MustParseAddr("10.0.0.1")}, nil
	}
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// Webhook URLs that could reach private, loopback, link-local, metadata or
// other reserved addresses are refused, each either when the endpoint is
// created or when its delivery dials, as the table says; a delivery that
// is refused sends nothing (the trap on 127.0.0.1 gets no connection) and
// its attempt says why. No allow-list: the production defaults.
func TestWebhookURLsThatReachPrivateAddressesAreRefused(t *testing.T) {
	t.Parallel()
	tr := newTrap(t)
	p := tr.port()
	tests := []struct {
		name, url, where string
	}{
		// IPv4 written in the forms a browser or libc reads as an address.
		{"decimal IPv4", "https://2130706433/", atCreate},
		{"decimal IPv4 with port", "https://2130706433:" + p + "/", atCreate},
		{"octal IPv4", "https://0177.0.0.1/", atCreate},
		{"octal IPv4 with port", "https://0177.0.0.01:" + p + "/", atCreate},
		{"hex IPv4", "https://0x7f.0.0.1/", atCreate},
		{"hex IPv4 as one number", "https://0x7f000001/", atCreate},
		{"short IPv4 127.1", "https://127.1:" + p + "/", atCreate},
		{"short IPv4 127.0.1", "https://127.0.1/", atCreate},
		{"IPv4 with a trailing dot", "https://127.0.0.1.:" + p + "/", atCreate},
		{"five-part IPv4", "https://127.0.0.0.1/", atCreate},
		{"bare zero", "https://0/", atCreate},
		// Ports.
		{"port out of range", "https://example.com:99999/", atCreate},
		{"port 65536", "https://example.com:65536/", atCreate},
		{"port 0", "https://example.com:0/", atCreate},
		{"port 0 on loopback", "https://127.0.0.1:0/", atCreate},
		// Userinfo and zones.
		{"userinfo before a loopback host", "https://example.com@127.0.0.1:" + p + "/", atCreate},
		{"user and password", "https://user:pass@example.com/", atCreate},
		{"IPv6 zone", "https://[fe80::1%25eth0]/", atCreate},
		{"plain http to loopback", "http://127.0.0.1:" + p + "/", atCreate},
		// Addresses checked when dialling.
		{"loopback", "https://127.0.0.1:" + p + "/", atDial},
		{"loopback elsewhere in 127/8", "https://127.8.9.10:" + p + "/", atDial},
		{"unspecified 0.0.0.0", "https://0.0.0.0:" + p + "/", atDial},
		{"fragment hiding an @", "https://127.0.0.1:" + p + "#@example.com/", atDial},
		{"IPv6 loopback", "https://[::1]:" + p + "/", atDial},
		{"IPv6 unspecified", "https://[::]:" + p + "/", atDial},
		{"IPv4-mapped IPv6, dotted", "https://[::ffff:127.0.0.1]:" + p + "/", atDial},
		{"IPv4-mapped IPv6, hex", "https://[::ffff:7f00:1]:" + p + "/", atDial},
		{"NAT64 of loopback", "https://[64:ff9b::7f00:1]:" + p + "/", atDial},
		{"unique local fd00::/8", "https://[fd00::1]/", atDial},
		{"link-local fe80::", "https://[fe80::1]/", atDial},
		{"AWS metadata", "https://169.254.169.254/latest/meta-data/", atDial},
		{"AWS metadata over IPv6", "https://[fd00:ec2::254]/latest/meta-data/", atDial},
		{"Google metadata name", "https://metadata.google.internal/computeMetadata/v1/", atDial},
		{"Alibaba metadata", "https://100.100.100.200/latest/meta-data/", atDial},
		{"CGNAT", "https://100.64.0.1/", atDial},
		{"private 10/8", "https://10.0.0.1/", atDial},
		{"private 172.16/12", "https://172.16.0.1/", atDial},
		{"private 192.168/16", "https://192.168.0.1/", atDial},
		{"documentation 2001:db8::/32", "https://[2001:db8::1]/", atDial},
		{"localhost", "https://localhost:" + p + "/", atDial},
		{"localhost with a trailing dot", "https://localhost.:" + p + "/", atDial},
		{"a .localhost name", "https://app.localhost:" + p + "/", atDial},
		{"a public-looking name for loopback", "https://127.0.0.1.nip.io:" + p + "/", atDial},
		{"a name for 10.0.0.1", "https://ten.example.com/", atDial},
		{"public at create, loopback at delivery", "https://rebind.example.com:" + p + "/hook", atDial},
	}
	env := testenv.New(t, testenv.NewClock())
	d := &dns{}
	ctx := context.Background()
	name := "receiver"
	events := []string{"*"}
	created := map[string]string{} // row name → endpoint id
	for _, tt := range tests {
		u := tt.url
		ep, err := env.App.CreateEndpoint(ctx, idempotency.Tx{}, tenant, webhook.Input{Name: &name, URL: &u, SubscribedEvents: &events})
		var ve *webhook.ValidationError
		switch {
		case tt.where == atCreate && errors.As(err, &ve) && len(ve.Fields["url"]) > 0:
		case tt.where == atCreate:
			t.Errorf("%s (%s): create answered %v, want a validation error on url", tt.name, tt.url, err)
		case err != nil:
			t.Errorf("%s (%s): create refused (%v), want it stored and refused when dialling", tt.name, tt.url, err)
		default:
			created[tt.name] = ep.ID
		}
	}
	if t.Failed() {
		return
	}
	d.rebind() // the name answered a public address until now
	env.Event(t, tenant, "contact.created", map[string]string{"k": "v"})
	disp := newDispatcher(t, env, testenv.NewReceiver(t, nil), func(o *dispatch.Options) {
		o.Transport.Allow, o.Transport.RootCAs, o.Transport.Resolve = nil, nil, d.resolve
	})
	if n := runOnce(t, disp); n != len(created) {
		t.Errorf("dispatcher handled %d deliveries, want %d", n, len(created))
	}
	for _, tt := range tests {
		id, ok := created[tt.name]
		if !ok {
			continue
		}
		rows := env.Deliveries(t, tenant, id)
		if len(rows) != 1 {
			t.Errorf("%s: %d deliveries, want 1", tt.name, len(rows))
			continue
		}
		row := rows[0]
		if row.Status != webhook.StatusRetrying || row.ResponseStatus != nil || row.LastError == nil ||
			!strings.Contains(*row.LastError, "not allowed") {
			t.Errorf("%s (%s): delivery %s, error %v; want the attempt refused as not allowed", tt.name, tt.url, row.Status, deref(row.LastError))
		}
	}
	if n := tr.accepted.Load(); n != 0 {
		t.Errorf("the listener on 127.0.0.1 accepted %d connections, want none", n)
	}
	t.Logf("%d URLs refused at create, %d when dialling", len(tests)-len(created), len(created))
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
