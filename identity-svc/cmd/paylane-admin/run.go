package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/paylane/paylane/identity-svc/client"
)

const usage = `usage: paylane-admin [--config FILE] [--admin-url URL] [--admin-token TOKEN] [--ca-file FILE] COMMAND

commands:
  tenants create --name N [--currency USD] [--region US] [--sms-number +1...]
                 [--ai-gateway] [--opt-in] [--api-rpm N] [--batch-rpm N] [--batches-in-flight N]
                 [--ai-max-amount N] [--ai-daily-amount N]
  tenants update ID [same flags; a limit of 0 restores the deployment default]
  tenants list [--page N] [--per-page N]
  tenants show ID
  tokens create --tenant ID --name N --abilities a,b|all [--expires-at RFC3339] [--token-only]
  tokens list --tenant ID [--page N] [--per-page N]
  tokens revoke --tenant ID TOKEN_ID
  users create --tenant ID --email E --name N --role owner|developer|finance|support
  users list --tenant ID [--page N] [--per-page N]
  users disable --tenant ID USER_ID
  messages --tenant ID [--to +E164]
`

// errUsage marks a command line that cannot be run; the usage text is
// printed with it.
var errUsage = errors.New("invalid command line")

// cli is one invocation: where output goes and the admin client.
type cli struct {
	stdout io.Writer
	admin  *client.Admin
}

// run is the whole command: it parses args, runs the command and returns
// the exit status (0 success, 1 failure).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := execute(ctx, args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		// --help or -h, on the command or any subcommand: usage is the
		// answer asked for, on stdout.
		_, _ = io.WriteString(stdout, usage)
		return 0
	}
	if err != nil {
		reportError(stderr, err)
		return 1
	}
	return 0
}

func execute(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("paylane-admin", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var o connOptions
	fs.StringVar(&o.configFile, "config", "", "devstack.json to read (default: .paylane/devstack.json in this or a parent directory)")
	fs.StringVar(&o.adminURL, "admin-url", "", "admin base URL (env PAYLANE_ADMIN_URL)")
	fs.StringVar(&o.adminToken, "admin-token", "", "admin token (env PAYLANE_ADMIN_TOKEN)")
	fs.StringVar(&o.caFile, "ca-file", "", "PEM CA certificate to trust (env PAYLANE_CA_FILE)")
	if err := fs.Parse(args); err != nil {
		return usageError(err)
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return usageError(errors.New("no command given"))
	}
	command, cmdArgs := rest[0], rest[1:]
	if command == "help" {
		_, err := io.WriteString(stdout, usage)
		return err
	}
	handler, err := lookup(command, cmdArgs)
	if err != nil {
		return err
	}
	admin, err := o.client()
	if err != nil {
		return err
	}
	c := &cli{stdout: stdout, admin: admin}
	return handler(ctx, c)
}

// command is a parsed command ready to run.
type command func(ctx context.Context, c *cli) error

// lookup parses the arguments of a command (before any configuration is
// read, so a typo fails fast).
func lookup(name string, args []string) (command, error) {
	switch name {
	case "tenants":
		return tenantsCommand(args)
	case "tokens":
		return tokensCommand(args)
	case "users":
		return usersCommand(args)
	case "messages":
		return messagesCommand(args)
	}
	return nil, usageError(fmt.Errorf("unknown command %q", name))
}

// print writes v as indented JSON. HTML characters stay as they are: an SMS
// body's link holds "&", and a person copies it from here.
func (c *cli) print(v any) error {
	if raw, ok := v.(json.RawMessage); ok {
		// The services escape "&" as \u0026 on the wire; read the answer
		// back so it prints as the text it stands for.
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var decoded any
		if err := dec.Decode(&decoded); err != nil {
			return fmt.Errorf("reading the answer: %w", err)
		}
		v = decoded
	}
	enc := json.NewEncoder(c.stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func usageError(err error) error { return fmt.Errorf("%w: %w", errUsage, err) }

func reportError(stderr io.Writer, err error) {
	var apiErr *client.Error
	switch {
	case errors.As(err, &apiErr):
		fmt.Fprintf(stderr, "paylane-admin: %v\n", err)
		if len(apiErr.Details) > 0 && string(apiErr.Details) != "null" {
			fmt.Fprintf(stderr, "details: %s\n", apiErr.Details)
		}
		if apiErr.RequestID != "" {
			fmt.Fprintf(stderr, "request id: %s\n", apiErr.RequestID)
		}
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "paylane-admin: %v\n\n%s", err, usage)
	default:
		fmt.Fprintf(stderr, "paylane-admin: %v\n", err)
	}
}
