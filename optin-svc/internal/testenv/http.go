package testenv

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

// Response is an answer read whole.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// ErrorCode returns error.code of an error envelope, or "".
func (r Response) ErrorCode() string {
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &env)
	return env.Error.Code
}

// Decode decodes the body into v, failing the test on error.
func (r Response) Decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decoding %s: %v", r.Body, err)
	}
}

// Do sends a request to optin-svc with a bearer token (when not empty) and
// a JSON body (when not nil).
func (e *Env) Do(t testing.TB, method, path, token string, body any) Response {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, e.BaseURL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return Send(t, req)
}

// Send sends req with a client that follows no redirects and reads the answer.
func Send(t testing.TB, req *http.Request) Response {
	t.Helper()
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}
