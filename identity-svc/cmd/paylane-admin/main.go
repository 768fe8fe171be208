// Command paylane-admin drives the operator plane (/admin/v1): tenants,
// tokens and the dev SMS sink. It reads the admin URL, token and CA from
// .paylane/devstack.json (found in the current directory or a parent) unless
// flags or PAYLANE_ADMIN_URL / PAYLANE_ADMIN_TOKEN say otherwise. Output is
// a table on a terminal and JSON otherwise (--output json|table chooses);
// errors go to stderr with exit status 1, a wrong command line with 2.
// `version` and `completion bash|zsh` need no admin plane.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
