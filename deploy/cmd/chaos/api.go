package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// answer is what one request got.
type answer struct {
	status int    // 0: no answer
	body   []byte // the response body
	hung   bool   // no answer within requestTimeout
	err    error
}

func (a answer) ok() bool { return a.status >= 200 && a.status < 300 }

// dataID is the response's data.id.
func (a answer) dataID() string {
	var env struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	_ = json.Unmarshal(a.body, &env)
	return env.Data.ID
}

// data decodes the response's data into dst.
func (a answer) data(dst any) error {
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(a.body, &env); err != nil {
		return err
	}
	return json.Unmarshal(env.Data, dst)
}

// errorCode is the envelope's error.code.
func (a answer) errorCode() string {
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(a.body, &env)
	return env.Error.Code
}

// do sends one request to the gateway with token, an Idempotency-Key (when
// key is not empty) and body as JSON (none when nil).
func do(ctx context.Context, hc *http.Client, base, token, method, path, key string, body []byte) answer {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		return answer{err: err}
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	return send(hc, req)
}

func send(hc *http.Client, req *http.Request) answer {
	resp, err := hc.Do(req)
	if err != nil {
		var te interface{ Timeout() bool }
		return answer{err: err, hung: errors.As(err, &te) && te.Timeout() && req.Context().Err() == nil}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{status: resp.StatusCode, err: err}
	}
	return answer{status: resp.StatusCode, body: raw}
}

var csrfField = regexp.MustCompile(`name="_csrf" value="([0-9a-f]+)"`)

// submitPage opens a hosted page with a browser-like client (cookie jar)
// and posts form with the page's CSRF token, as a customer's browser does.
// It returns the answer to the post.
func submitPage(ctx context.Context, browser *http.Client, link string, form url.Values) answer {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, link, nil)
	if err != nil {
		return answer{err: err}
	}
	page := send(browser, req)
	if page.status != http.StatusOK {
		return page
	}
	m := csrfField.FindSubmatch(page.body)
	if m == nil {
		return answer{status: page.status, body: page.body, err: errors.New("no form on the page")}
	}
	form.Set("_csrf", string(m[1]))
	req, err = http.NewRequestWithContext(ctx, http.MethodPost, link, strings.NewReader(form.Encode()))
	if err != nil {
		return answer{err: err}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return send(browser, req)
}
