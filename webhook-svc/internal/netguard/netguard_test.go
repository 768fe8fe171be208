package netguard_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/paylane/paylane/webhook-svc/internal/netguard"
)

// Refused addresses fail when dialling, before any packet is sent.
func TestRefusesReservedAddresses(t *testing.T) {
	t.Parallel()
	client := netguard.NewClient(netguard.NewTransport(netguard.Options{MaxConnsPerEndpoint: 1}), 5*time.Second)
	for _, target := range []string{
		"https://127.0.0.1/", "https://127.8.9.10:8443/", "https://[::1]/", "https://10.1.2.3/", "https://172.16.0.1/",
		"https://192.168.1.1/", "https://169.254.169.254/latest/meta-data", "https://100.64.0.1/", "https://0.0.0.0/",
		"https://[fe80::1]/", "https://[fc00::1]/", "https://[::ffff:127.0.0.1]/",
	} {
		t.Run(target, func(t *testing.T) {
			t.Parallel()
			req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, target, nil)
			resp, err := client.Do(req)
			if err == nil {
				resp.Body.Close()
				t.Fatal("request went through")
			}
			if !errors.Is(err, netguard.ErrProhibited) {
				t.Fatalf("error %v, want the address refused", err)
			}
		})
	}
}

func TestAllowListAndNoRedirects(t *testing.T) {
	t.Parallel()
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		http.Redirect(w, r, "/next", http.StatusMovedPermanently)
	}))
	defer srv.Close()
	allow, err := netguard.ParseAllow("127.0.0.0/8, ::1")
	if err != nil {
		t.Fatal(err)
	}
	client := netguard.NewClient(netguard.NewTransport(netguard.Options{Allow: allow, MaxConnsPerEndpoint: 1}), 5*time.Second)
	resp, err := client.Post(srv.URL, "application/json", nil)
	if err != nil {
		t.Fatalf("allowed loopback refused: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMovedPermanently || hits != 1 {
		t.Errorf("status %d after %d hits, want the 301 itself, not followed", resp.StatusCode, hits)
	}
}

func TestParseAllow(t *testing.T) {
	t.Parallel()
	got, err := netguard.ParseAllow(" 127.0.0.0/8,::1 ,10.1.2.3, fd00::/8,")
	if err != nil {
		t.Fatal(err)
	}
	want := []netip.Prefix{
		netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128"),
		netip.MustParsePrefix("10.1.2.3/32"), netip.MustParsePrefix("fd00::/8"),
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })); diff != "" {
		t.Errorf("ParseAllow (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"localhost", "10.0.0.0/33", "1.2.3"} {
		if _, err := netguard.ParseAllow(bad); err == nil {
			t.Errorf("ParseAllow(%q) accepted it", bad)
		}
	}
	if got, err := netguard.ParseAllow(""); err != nil || len(got) != 0 {
		t.Errorf("ParseAllow(\"\") = %v, %v; want none", got, err)
	}
}
