package links_test

import (
	"bytes"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/paylane/paylane/transactions-svc/internal/links"
)

func signer(t *testing.T) *links.Signer {
	t.Helper()
	s, err := links.NewSigner(bytes.Repeat([]byte("k"), 32), "https://pay.example.test/")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestURLVerifies(t *testing.T) {
	t.Parallel()
	s := signer(t)
	now := time.Unix(1_800_000_000, 0)
	exp := now.Add(72 * time.Hour)
	raw := s.URL("/l/r/01JD3X0Q4Z8W2E5R7T9Y1V3K5M", exp)
	u, err := url.Parse(raw)
	if err != nil || u.Host != "pay.example.test" || u.Path != "/l/r/01JD3X0Q4Z8W2E5R7T9Y1V3K5M" {
		t.Fatalf("URL = %s", raw)
	}
	q := u.Query()
	got, err := s.Verify(u.Path, q.Get("expires"), q.Get("signature"), now)
	if err != nil || !got.Equal(exp) {
		t.Fatalf("Verify = %v, %v", got, err)
	}
	if _, err := s.Verify(u.Path, q.Get("expires"), q.Get("signature"), exp); !errors.Is(err, links.ErrExpired) {
		t.Fatalf("Verify at expiry = %v, want ErrExpired", err)
	}
}

func TestVerifyRefusesTampering(t *testing.T) {
	t.Parallel()
	s := signer(t)
	now := time.Unix(1_800_000_000, 0)
	u, _ := url.Parse(s.URL("/l/r/01JD3X0Q4Z8W2E5R7T9Y1V3K5M", now.Add(time.Hour)))
	exp, sig := u.Query().Get("expires"), u.Query().Get("signature")
	other, _ := links.NewSigner(bytes.Repeat([]byte("x"), 32), "https://pay.example.test")
	u2, _ := url.Parse(other.URL("/l/r/01JD3X0Q4Z8W2E5R7T9Y1V3K5M", now.Add(time.Hour)))
	tests := map[string][3]string{
		"other path":    {"/l/p/01JD3X0Q4Z8W2E5R7T9Y1V3K5M", exp, sig},
		"later expiry":  {u.Path, exp + "0", sig},
		"padded expiry": {u.Path, "0" + exp, sig},
		"flipped digit": {u.Path, exp, strings.Replace(sig, sig[:1], map[bool]string{true: "1", false: "0"}[sig[0] == '0'], 1)},
		"missing":       {u.Path, exp, ""},
		"no expiry":     {u.Path, "", sig},
		"not hex":       {u.Path, exp, "zz"},
		"other key":     {u.Path, exp, u2.Query().Get("signature")},
	}
	for name, in := range tests {
		if _, err := s.Verify(in[0], in[1], in[2], now); !errors.Is(err, links.ErrInvalidSignature) {
			t.Errorf("%s: Verify = %v, want ErrInvalidSignature", name, err)
		}
	}
}

func TestNewSignerChecksConfiguration(t *testing.T) {
	t.Parallel()
	if _, err := links.NewSigner([]byte("short"), "https://x.test"); err == nil {
		t.Error("short key accepted")
	}
	if _, err := links.NewSigner(bytes.Repeat([]byte("k"), 32), "pay.example"); err == nil {
		t.Error("relative base URL accepted")
	}
}
