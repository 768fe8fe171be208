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

const usage = `usage: paylane-admin [--config FILE] [--admin-url URL] [--admin-token TOKEN] [--ca-file FILE]
                     [--output json|table] COMMAND

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
  messages --tenant ID [--to +E164] [--page N] [--per-page N]
  version                      the module version and VCS revision of this binary
  completion bash|zsh          a shell completion script: source <(paylane-admin completion bash)
  help                         this text (also --help or -h after any command)

Every command that prints takes --output json|table (-o): a table when stdout is a
terminal, JSON otherwise (a pipe, a file), so scripts read JSON without asking.

The admin URL, token and CA come from the flags, else PAYLANE_ADMIN_URL,
PAYLANE_ADMIN_TOKEN and PAYLANE_CA_FILE, else .paylane/devstack.json in this or a
parent directory.

exit status: 0 success, 1 the command failed (the API's error.code and message on
stderr), 2 the command line is wrong (the usage follows the error).
`

// Exit statuses.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// errUsage marks a command line that cannot be run; the usage text is
// printed with it.
var errUsage = errors.New("invalid command line")

// cli is one invocation: where output goes, how, and the admin client.
type cli struct {
	stdout   io.Writer
	admin    *client.Admin
	output   output // --output given before the command
	terminal bool   // stdout is a terminal
}

// run is the whole command: it parses args, runs the command and returns
// the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := execute(ctx, args, stdout)
	var help *helpRequest
	switch {
	case errors.As(err, &help):
		_, _ = io.WriteString(stdout, help.usage())
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		// --help or -h, on the command or any subcommand: usage is the
		// answer asked for, on stdout.
		_, _ = io.WriteString(stdout, usage)
		return exitOK
	case errors.Is(err, errUsage):
		reportError(stderr, err)
		return exitUsage
	case err != nil:
		reportError(stderr, err)
		return exitFailure
	}
	return exitOK
}

func execute(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlags("paylane-admin")
	var o connOptions
	var out output
	var version bool
	fs.StringVar(&o.configFile, "config", "", "devstack.json to read (default: .paylane/devstack.json in this or a parent directory)")
	fs.StringVar(&o.adminURL, "admin-url", "", "admin base URL (env PAYLANE_ADMIN_URL)")
	fs.StringVar(&o.adminToken, "admin-token", "", "admin token (env PAYLANE_ADMIN_TOKEN)")
	fs.StringVar(&o.caFile, "ca-file", "", "PEM CA certificate to trust (env PAYLANE_CA_FILE)")
	fs.BoolVar(&version, "version", false, "print the version and exit")
	addOutput(fs, &out)
	if err := fs.Parse(args); err != nil {
		return usageError(err)
	}
	c := &cli{stdout: stdout, output: out, terminal: isTerminal(stdout)}
	rest := fs.Args()
	if version {
		rest = []string{"version"}
	}
	if len(rest) == 0 {
		return usageError(errors.New("no command given"))
	}
	command, cmdArgs := rest[0], rest[1:]
	// Commands that need no admin plane.
	switch command {
	case "help":
		return flag.ErrHelp
	case "version":
		cmd, err := versionCommand(cmdArgs)
		if err != nil {
			return err
		}
		return cmd(ctx, c)
	case "completion":
		cmd, err := completionCommand(cmdArgs)
		if err != nil {
			return err
		}
		return cmd(ctx, c)
	}
	handler, err := lookup(command, cmdArgs)
	if err != nil {
		return err
	}
	if c.admin, err = o.client(); err != nil {
		return err
	}
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

// isHelp reports whether a command group's first argument asks for help
// (paylane-admin tenants --help).
func isHelp(arg string) bool {
	return arg == "-h" || arg == "--help" || arg == "-help" || arg == "help"
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
