package client

import (
	"net/http"
	"time"

	"github.com/paylane/paylane/libs/svcclient"
)

// Error is an error answer of identity-svc (or of a service reached through
// the admin plane): the status and the envelope's fields.
type Error = svcclient.Error

// StatusOf returns the HTTP status of an *Error in err's chain, or 0.
func StatusOf(err error) int { return svcclient.StatusOf(err) }

// core returns the client core for service at baseURL: a nil hc gets a
// 10 s timeout per call, a given hc keeps its own.
func core(service, baseURL string, hc *http.Client) *svcclient.Client {
	timeout := 10 * time.Second
	if hc != nil {
		timeout = -1
	}
	return svcclient.New(svcclient.Config{Service: service, BaseURL: baseURL, HTTP: hc, Timeout: timeout})
}
