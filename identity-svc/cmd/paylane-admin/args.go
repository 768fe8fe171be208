package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/paylane/paylane/identity-svc/client"
)

// newFlags returns a flag set that reports errors instead of exiting.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parse parses args with flags and positional arguments in any order and
// returns the positional ones.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, &helpRequest{fs: fs}
			}
			return nil, usageError(fmt.Errorf("%s: %w", fs.Name(), err))
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// expectArgs checks the number of positional arguments.
func expectArgs(cmd string, got []string, names ...string) error {
	if len(got) != len(names) {
		want := "no arguments"
		if len(names) > 0 {
			want = strings.Join(names, " ")
		}
		return usageError(fmt.Errorf("%s takes %s, got %q", cmd, want, got))
	}
	return nil
}

// isSet reports whether the flag was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

// required reports an empty required flag.
func required(cmd, flagName, value string) error {
	if strings.TrimSpace(value) == "" {
		return usageError(fmt.Errorf("%s needs --%s", cmd, flagName))
	}
	return nil
}

// helpRequest is --help or -h on a command: its usage is the answer.
type helpRequest struct{ fs *flag.FlagSet }

func (h *helpRequest) Error() string { return h.fs.Name() + ": help requested" }

// Unwrap makes a help request a flag.ErrHelp.
func (h *helpRequest) Unwrap() error { return flag.ErrHelp }

// usage returns the command's lines of the usage text and its flags.
func (h *helpRequest) usage() string {
	var b strings.Builder
	name := h.fs.Name()
	b.WriteString("usage: paylane-admin [global flags] " + name + " ...\n\n")
	in := false
	for _, line := range strings.Split(usage, "\n") {
		switch {
		case strings.HasPrefix(line, "  "+name+" ") || line == "  "+name:
			in = true
		case in && strings.HasPrefix(line, "        "):
			// the command's continuation line
		default:
			in = false
		}
		if in {
			b.WriteString(line + "\n")
		}
	}
	var flags strings.Builder
	h.fs.SetOutput(&flags)
	h.fs.PrintDefaults()
	h.fs.SetOutput(io.Discard)
	if flags.Len() > 0 {
		b.WriteString("\nflags:\n")
	}
	// The flag package prints -name; people type --name (both work), and
	// -o for a one-letter name.
	for _, line := range strings.SplitAfter(flags.String(), "\n") {
		if name, ok := strings.CutPrefix(line, "  -"); ok && len(strings.Fields(name)[0]) > 1 {
			line = "  --" + name
		}
		b.WriteString(line)
	}
	b.WriteString("\nglobal flags and exit statuses: paylane-admin --help\n")
	return b.String()
}

// tenantList is a paged list of one tenant's records: it takes --tenant,
// --page, --per-page and --output, no arguments; list fetches the page and
// table prints it when the output is a table.
func tenantList[P any](cmd string, args []string,
	list func(*client.Admin, context.Context, string, client.ListOptions) (*P, error),
	table func(*tabwriter.Writer, *P)) (command, error) {
	fs := newFlags(cmd)
	var tenant string
	var opts client.ListOptions
	var out output
	addOutput(fs, &out)
	fs.StringVar(&tenant, "tenant", "", "tenant id")
	fs.IntVar(&opts.Page, "page", 0, "page number")
	fs.IntVar(&opts.PerPage, "per-page", 0, "page size (at most 100)")
	pos, err := parse(fs, args)
	if err != nil {
		return nil, err
	}
	if err := errors.Join(expectArgs(cmd, pos), required(cmd, "tenant", tenant)); err != nil {
		return nil, err
	}
	return func(ctx context.Context, c *cli) error {
		page, err := list(c.admin, ctx, tenant, opts)
		if err != nil {
			return err
		}
		return c.show(out, page, func(tw *tabwriter.Writer) { table(tw, page) })
	}, nil
}
