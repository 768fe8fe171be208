package devstack

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// printBanner tells the developer where the stack is and how to call it.
// It prints the demo token on purpose: the banner goes to the terminal of
// the developer who owns the stack, and the token works only against it.
func printBanner(w io.Writer, root string, f File) {
	ca := displayPath(f.CAFile)
	state := displayPath(filepath.Join(root, "devstack.json"))
	adminCmd := "go run github.com/paylane/paylane/identity-svc/cmd/paylane-admin"
	if state != filepath.Join(".paylane", "devstack.json") {
		// paylane-admin finds .paylane/devstack.json on its own; elsewhere it needs the path.
		adminCmd += " --config " + state
	}
	fmt.Fprintf(w, `
Paylane devstack is up.

  gateway      %[1]s
  CA           %[2]s
  admin API    %[3]s (admin token in %[4]s)
  demo tenant  %[5]s
  demo token   %[6]s
  dashboard    %[1]s/dashboard (demo_user_email and demo_user_password in %[4]s)

Try it:
  curl --cacert %[2]s %[1]s/api/v1/healthcheck/app
  curl --cacert %[2]s -H "Authorization: Bearer $(jq -r .demo_token %[4]s)" %[1]s/api/v1/openapi.json
  %[8]s tokens create --tenant %[5]s --name sync --abilities api:view-any-contact

Ctrl-C stops everything; the data stays in %[7]s (make reset wipes it).

`, f.GatewayURL, ca, f.AdminURL, state, f.DemoTenantID, f.DemoToken, displayPath(root), adminCmd)
}

// displayPath shortens an absolute path to one relative to the working
// directory when it lies below it (".paylane/tls/ca.pem" for the default
// root), so the printed commands can be pasted as they are.
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
