package testkit

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/paylane/paylane/libs/authz"
)

// Response is an HTTP answer read whole.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v, failing the test when it cannot.
func (r Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decoding %s: %v", r.Body, err)
	}
}

// Code is the error.code of an error answer ("" for any other).
func (r Response) Code() string {
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &env)
	return env.Error.Code
}

// Do sends a JSON request to url with a bearer token (none when empty) and
// headers as name, value pairs, and reads the answer. body is sent as is
// when it is a string or []byte, encoded as JSON otherwise, and left out
// when nil.
func Do(t testing.TB, method, url, token string, body any, headers ...string) Response {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case string:
		rd = bytes.NewReader([]byte(b))
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// NewSigner returns a signer of internal tokens with a fresh key.
func NewSigner(t testing.TB) *authz.Signer {
	t.Helper()
	seed, err := authz.GenerateSeed()
	if err != nil {
		t.Fatal(err)
	}
	signer, err := authz.NewSigner(seed)
	if err != nil {
		t.Fatal(err)
	}
	return signer
}

// IdentityJWKS serves signer's public keys where identity-svc does
// (/internal/v1/jwks) until the test ends, and returns the base URL: the
// identity-svc a service under test verifies internal tokens with.
func IdentityJWKS(t testing.TB, signer *authz.Signer) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/internal/v1/jwks" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(signer.JWKS())
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}
