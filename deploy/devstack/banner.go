package devstack

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// printBanner tells the developer where the stack is and how to call it.
// It prints the demo token on purpose: the banner is the local terminal of
// the developer who owns the stack, and the token only works against it.
func printBanner(w io.Writer, f File) {
	ca := displayPath(f.CAFile)
	fmt.Fprintf(w, `
Paylane devstack is up.

  gateway      %s
  admin API    %s   (admin token in devstack.json)
  CA           %s
  demo tenant  %s
  demo token   %s

Try it:
  curl --cacert %s %s/api/v1/healthcheck/app
  curl --cacert %s -H "Authorization: Bearer $(jq -r .demo_token %s)" %s/api/v1/openapi.json
  go run github.com/paylane/paylane/identity-svc/cmd/paylane-admin tokens create --tenant %s --name sync --abilities api:view-any-contact

Ctrl-C stops everything; data stays in %s (make reset wipes it).
`, f.GatewayURL, f.AdminURL, ca, f.DemoTenantID, f.DemoToken,
		ca, f.GatewayURL,
		ca, displayPath(filepath.Join(filepath.Dir(filepath.Dir(f.CAFile)), "devstack.json")), f.GatewayURL,
		f.DemoTenantID,
		displayPath(filepath.Dir(filepath.Dir(f.CAFile))))
}

// displayPath shortens an absolute path to one relative to the working
// directory when it lies below it (".paylane/tls/ca.pem" for the default root).
func displayPath(abs string) string {
	wd, err := os.Getwd()
	if err != nil {
		return abs
	}
	rel, err := filepath.Rel(wd, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return abs
	}
	return rel
}
