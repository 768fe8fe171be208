// Package links signs and verifies the hosted-page links of receivables and
// payables (contract section 6):
//
//	{base_url}/l/r/{id}?expires=<unix>&signature=<hex HMAC-SHA256(key, path + "?expires=" + expires)>
//
// The signature covers the path and the expiry, so neither can be changed;
// it is compared in constant time. Whether a link was revoked or replaced is
// the item's state, checked by the caller.
package links

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Path prefixes of the hosted pages.
const (
	ReceivablePrefix = "/l/r/"
	PayablePrefix    = "/l/p/"
)

// MinKeyLength is the shortest link key accepted (bytes).
const MinKeyLength = 32

// Errors of Verify.
var (
	// ErrInvalidSignature: the signature or expiry is missing or does not
	// match (401 invalid_signature).
	ErrInvalidSignature = errors.New("links: invalid signature")
	// ErrExpired: the link is authentic but past its expiry (410 link_expired).
	ErrExpired = errors.New("links: link expired")
)

// Signer signs and verifies links with the deployment's link key.
type Signer struct {
	key     []byte
	baseURL string
}

// NewSigner returns a signer for links under baseURL (PUBLIC_BASE_URL, no
// trailing slash needed).
func NewSigner(key []byte, baseURL string) (*Signer, error) {
	if len(key) < MinKeyLength {
		return nil, errors.New("links: the link key must be at least 32 bytes")
	}
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("links: the public base URL must be an absolute http(s) URL")
	}
	return &Signer{key: append([]byte(nil), key...), baseURL: strings.TrimRight(baseURL, "/")}, nil
}

// URL returns the signed link of path (for example "/l/r/01J...") expiring
// at expires.
func (s *Signer) URL(path string, expires time.Time) string {
	exp := strconv.FormatInt(expires.Unix(), 10)
	return s.baseURL + path + "?expires=" + exp + "&signature=" + s.sign(path, exp)
}

// sign is the hex HMAC-SHA256 of path + "?expires=" + exp.
func (s *Signer) sign(path, exp string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(path + "?expires=" + exp))
	return hex.EncodeToString(m.Sum(nil))
}

// Verify checks the expires and signature query values of a request for
// path at now. It returns the expiry the link carries; ErrInvalidSignature
// when either value is missing or the signature does not match, ErrExpired
// when the authentic link is past its expiry.
func (s *Signer) Verify(path, expires, signature string, now time.Time) (time.Time, error) {
	if expires == "" || signature == "" {
		return time.Time{}, ErrInvalidSignature
	}
	unix, err := strconv.ParseInt(expires, 10, 64)
	if err != nil || strconv.FormatInt(unix, 10) != expires {
		return time.Time{}, ErrInvalidSignature
	}
	got, err := hex.DecodeString(signature)
	if err != nil {
		return time.Time{}, ErrInvalidSignature
	}
	want, _ := hex.DecodeString(s.sign(path, expires))
	if !hmac.Equal(got, want) {
		return time.Time{}, ErrInvalidSignature
	}
	exp := time.Unix(unix, 0).UTC()
	if !now.Before(exp) {
		return exp, ErrExpired
	}
	return exp, nil
}

// MAC returns the hex HMAC-SHA256 of parts joined by "|" under a key derived
// for purpose, for tokens of the hosted pages (CSRF) that must not be
// interchangeable with link signatures.
func (s *Signer) MAC(purpose string, parts ...string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte("paylane/" + purpose + "\x00" + strings.Join(parts, "|")))
	return hex.EncodeToString(m.Sum(nil))
}

// Origin is the public origin links are built on (no trailing slash).
func (s *Signer) Origin() string { return s.baseURL }

// Secure reports whether links are served over https (cookies get Secure).
func (s *Signer) Secure() bool { return strings.HasPrefix(s.baseURL, "https://") }
