package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/paylane/paylane/identity-svc/client"
	"github.com/paylane/paylane/libs/authz"
)

func tokensCommand(args []string) (command, error) {
	if len(args) == 0 {
		return nil, usageError(errors.New("tokens needs a subcommand: create, list or revoke"))
	}
	if isHelp(args[0]) {
		return nil, flag.ErrHelp
	}
	switch sub, rest := args[0], args[1:]; sub {
	case "create":
		return tokensCreate(rest)
	case "list":
		return tokensList(rest)
	case "revoke":
		return tokensRevoke(rest)
	default:
		return nil, usageError(fmt.Errorf("unknown tokens subcommand %q", sub))
	}
}

func tokensCreate(args []string) (command, error) {
	fs := newFlags("tokens create")
	var tenant, name, abilities, expiresAt string
	var tokenOnly bool
	var out output
	addOutput(fs, &out)
	fs.StringVar(&tenant, "tenant", "", "tenant id")
	fs.StringVar(&name, "name", "", "token name")
	fs.StringVar(&abilities, "abilities", "", `comma-separated abilities, or "all"`)
	fs.StringVar(&expiresAt, "expires-at", "", "expiry (RFC 3339)")
	fs.BoolVar(&tokenOnly, "token-only", false, "print only the plaintext token")
	pos, err := parse(fs, args)
	if err != nil {
		return nil, err
	}
	if err := errors.Join(expectArgs("tokens create", pos), required("tokens create", "tenant", tenant),
		required("tokens create", "name", name), required("tokens create", "abilities", abilities)); err != nil {
		return nil, err
	}
	in := client.TokenInput{Name: name, Abilities: parseAbilities(abilities)}
	if expiresAt != "" {
		t, err := time.Parse(time.RFC3339, expiresAt)
		if err != nil {
			return nil, usageError(fmt.Errorf("--expires-at must be RFC 3339 (2026-12-31T00:00:00Z): %w", err))
		}
		in.ExpiresAt = &t
	}
	return func(ctx context.Context, c *cli) error {
		tok, err := c.admin.CreateToken(ctx, tenant, in)
		if err != nil {
			return err
		}
		if tokenOnly {
			_, err := fmt.Fprintln(c.stdout, tok.Token)
			return err
		}
		return c.show(out, tok, func(tw *tabwriter.Writer) {
			row(tw, "ID", strconv.FormatInt(tok.ID, 10))
			row(tw, "NAME", tok.Name)
			row(tw, "ABILITIES", strings.Join(tok.Abilities, ","))
			row(tw, "EXPIRES", stamp(tok.ExpiresAt))
			row(tw, "TOKEN", tok.Token)
			fmt.Fprintln(tw, "\nThe token is shown this once: store it now.")
		})
	}, nil
}

// parseAbilities splits the list; "all" expands to every known ability,
// since tokens never carry a wildcard.
func parseAbilities(s string) []string {
	if strings.TrimSpace(s) == "all" {
		return authz.All()
	}
	var out []string
	for _, a := range strings.Split(s, ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

func tokensList(args []string) (command, error) {
	return tenantList("tokens list", args, (*client.Admin).ListTokens, func(tw *tabwriter.Writer, page *client.TokenPage) {
		tokenRows(tw, page.Data)
		footer(tw, page.Meta, "tokens")
	})
}

func tokensRevoke(args []string) (command, error) {
	fs := newFlags("tokens revoke")
	var tenant string
	var out output
	addOutput(fs, &out)
	fs.StringVar(&tenant, "tenant", "", "tenant id")
	pos, err := parse(fs, args)
	if err != nil {
		return nil, err
	}
	if err := errors.Join(expectArgs("tokens revoke", pos, "TOKEN_ID"), required("tokens revoke", "tenant", tenant)); err != nil {
		return nil, err
	}
	id, err := strconv.ParseInt(pos[0], 10, 64)
	if err != nil || id <= 0 {
		return nil, usageError(fmt.Errorf("token id must be a positive integer, got %q", pos[0]))
	}
	return func(ctx context.Context, c *cli) error {
		if err := c.admin.RevokeToken(ctx, tenant, id); err != nil {
			return err
		}
		return c.show(out, map[string]any{"id": id, "revoked": true}, func(tw *tabwriter.Writer) {
			fmt.Fprintf(tw, "token %d revoked\n", id)
		})
	}, nil
}
