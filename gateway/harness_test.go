package gateway_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/paylane/paylane/gateway"
	"github.com/paylane/paylane/gateway/internal/peertest"
	"github.com/paylane/paylane/libs/svcrun"
)

const adminToken = "admin-token-for-tests-0123456789"

// world is a stand-in identity-svc and an upstream service trusting it.
type world struct {
	identity *peertest.Identity
	upstream *peertest.Upstream
}

func newWorld(t *testing.T) *world {
	t.Helper()
	id := peertest.NewIdentity(t)
	return &world{identity: id, upstream: peertest.NewUpstream(t, id.Signer.JWKS())}
}

// config is a gateway on 127.0.0.1 ports chosen by the system, with routes to
// the world's upstream for hosted pages, the SMS callback and the admin plane.
func (w *world) config() gateway.Config {
	return gateway.Config{
		ListenAddr: "127.0.0.1:0", AdminAddr: "127.0.0.1:0", InternalAddr: "127.0.0.1:0",
		IdentityURL: w.identity.URL,
		Routes: []gateway.Route{
			{Prefix: "/l/r", Upstream: w.upstream.URL},
			{Prefix: "/webhooks/sms/inbound", Upstream: w.upstream.URL},
		},
		AdminRoutes: []gateway.Route{{Prefix: "/admin/v1/tenants", Upstream: w.upstream.URL}},
		AdminToken:  adminToken,
	}
}

// start runs the gateway until the test ends and returns its addresses.
func start(t *testing.T, cfg gateway.Config) gateway.Addrs {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan gateway.Addrs, 1)
	done := make(chan error, 1)
	go func() {
		done <- gateway.Run(ctx, cfg, svcrun.WithReady(func(a svcrun.Addrs) { ready <- gateway.AddrsOf(a) }))
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run returned %v after shutdown, want nil", err)
		}
	})
	select {
	case a := <-ready:
		return a
	case err := <-done:
		t.Fatalf("Run: %v", err)
	}
	return gateway.Addrs{}
}

// answer is a decoded response.
type answer struct {
	status int
	header http.Header
	body   []byte
	err    struct {
		Code      string `json:"code"`
		RequestID string `json:"request_id"`
	}
	echo peertest.Echo
}

func call(t *testing.T, c *http.Client, method, url, authorization string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	return do(t, c, req)
}

// do sends req with c and decodes the answer: the error envelope when there
// is one, else what the upstream saw.
func do(t *testing.T, c *http.Client, req *http.Request) answer {
	t.Helper()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	a := answer{status: resp.StatusCode, header: resp.Header}
	if a.body, err = io.ReadAll(resp.Body); err != nil {
		t.Fatal(err)
	}
	var env struct {
		Error *json.RawMessage `json:"error"`
	}
	if json.Unmarshal(a.body, &env) == nil && env.Error != nil {
		_ = json.Unmarshal(*env.Error, &a.err)
	} else {
		_ = json.Unmarshal(a.body, &a.echo)
	}
	return a
}

func wantError(t *testing.T, a answer, status int, code string) {
	t.Helper()
	if a.status != status || a.err.Code != code {
		t.Fatalf("got %d %q (%s), want %d %s", a.status, a.err.Code, a.body, status, code)
	}
	if id := a.header.Get("X-Request-Id"); id == "" || a.err.RequestID != id {
		t.Errorf("error.request_id %q, X-Request-Id %q: want equal and set", a.err.RequestID, id)
	}
}

// selfSigned writes a certificate for 127.0.0.1 and localhost and its key,
// and returns their paths and a pool trusting the certificate.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "gateway test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	writePEM(t, certFile, "CERTIFICATE", der)
	writePEM(t, keyFile, "EC PRIVATE KEY", keyDER)
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

func writePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// tlsClient is a client that trusts pool and speaks only the given TLS
// versions.
func tlsClient(pool *x509.CertPool, minVersion, maxVersion uint16) *http.Client {
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{
		RootCAs: pool, MinVersion: minVersion, MaxVersion: maxVersion,
	}}}
}

func url(scheme, addr, path string) string { return scheme + "://" + addr + path }

func token(id int64) peertest.Token { return peertest.Token{ID: id, TenantID: "TENANT1"} }

func bearer(token string) string { return "Bearer " + token }
