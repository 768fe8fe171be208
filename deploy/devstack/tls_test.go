package devstack

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestEnsureTLSGeneratesCAAndGatewayCertificate(t *testing.T) {
	t.Parallel()
	now := time.Now()
	files, err := EnsureTLS(t.TempDir(), now)
	if err != nil {
		t.Fatalf("EnsureTLS: %v", err)
	}
	ca, err := readCert(files.CACert)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := readCert(files.Cert)
	if err != nil {
		t.Fatal(err)
	}
	if !ca.IsCA || ca.NotAfter.Before(now.Add(9*365*24*time.Hour)) {
		t.Errorf("ca: IsCA=%v NotAfter=%v, want a CA valid ~10 years", ca.IsCA, ca.NotAfter)
	}
	if got := leaf.NotAfter.Sub(now); got < 364*24*time.Hour || got > 366*24*time.Hour {
		t.Errorf("leaf validity %v, want ~1 year", got)
	}
	for _, c := range []*x509.Certificate{ca, leaf} {
		pub, ok := c.PublicKey.(*ecdsa.PublicKey)
		if !ok || pub.Curve != elliptic.P256() {
			t.Errorf("%s: key is not ECDSA P-256", c.Subject.CommonName)
		}
	}
	if diff := cmp.Diff([]string{"localhost"}, leaf.DNSNames); diff != "" {
		t.Errorf("DNS names (-want +got):\n%s", diff)
	}
	wantIPs := []net.IP{net.ParseIP("127.0.0.1").To4(), net.ParseIP("::1")}
	if diff := cmp.Diff(wantIPs, leaf.IPAddresses); diff != "" {
		t.Errorf("IP addresses (-want +got):\n%s", diff)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	for _, host := range []string{"localhost", "127.0.0.1", "::1"} {
		if _, err := leaf.Verify(x509.VerifyOptions{DNSName: host, Roots: roots}); err != nil {
			t.Errorf("verify for %s: %v", host, err)
		}
	}
	if _, err := tls.LoadX509KeyPair(files.Cert, files.Key); err != nil {
		t.Errorf("gateway key pair: %v", err)
	}
}

func TestEnsureTLSFileModes(t *testing.T) {
	t.Parallel()
	files, err := EnsureTLS(t.TempDir(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{
		files.CAKey: 0o600, files.Key: 0o600, files.CACert: 0o644, files.Cert: 0o644,
	} {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Mode().Perm(); got != want {
			t.Errorf("%s: mode %o, want %o", filepath.Base(path), got, want)
		}
	}
}

func TestEnsureTLSReuse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		damage   func(TLSFiles)
		later    time.Duration
		sameCA   bool
		sameLeaf bool
	}{
		{name: "second start reuses everything", damage: func(TLSFiles) {}, sameCA: true, sameLeaf: true},
		{name: "missing gateway key reissues the leaf only", damage: func(f TLSFiles) { os.Remove(f.Key) }, sameCA: true},
		{name: "garbage gateway cert reissues the leaf only", damage: func(f TLSFiles) { os.WriteFile(f.Cert, []byte("x"), 0o644) }, sameCA: true},
		{name: "leaf about to expire is reissued", damage: func(TLSFiles) {}, later: 360 * 24 * time.Hour, sameCA: true},
		{name: "missing ca key regenerates everything", damage: func(f TLSFiles) { os.Remove(f.CAKey) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			now := time.Now()
			first, err := EnsureTLS(dir, now)
			if err != nil {
				t.Fatal(err)
			}
			ca1, leaf1 := readBytes(t, first.CACert), readBytes(t, first.Cert)
			tt.damage(first)
			second, err := EnsureTLS(dir, now.Add(tt.later))
			if err != nil {
				t.Fatal(err)
			}
			ca2, leaf2 := readBytes(t, second.CACert), readBytes(t, second.Cert)
			if got := string(ca1) == string(ca2); got != tt.sameCA {
				t.Errorf("same CA = %v, want %v", got, tt.sameCA)
			}
			if got := string(leaf1) == string(leaf2); got != tt.sameLeaf {
				t.Errorf("same gateway cert = %v, want %v", got, tt.sameLeaf)
			}
			if !leafUsable(second, mustCert(t, second.CACert), now.Add(tt.later)) {
				t.Error("gateway certificate unusable after EnsureTLS")
			}
		})
	}
}

func readBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustCert(t *testing.T, path string) *x509.Certificate {
	t.Helper()
	c, err := readCert(path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
