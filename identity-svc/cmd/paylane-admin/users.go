package main

import (
	"context"
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/paylane/paylane/identity-svc/client"
)

func usersCommand(args []string) (command, error) {
	if len(args) == 0 {
		return nil, usageError(errors.New("users needs a subcommand: create, list or disable"))
	}
	switch sub, rest := args[0], args[1:]; sub {
	case "create":
		return usersCreate(rest)
	case "list":
		return usersList(rest)
	case "disable":
		return usersDisable(rest)
	default:
		return nil, usageError(fmt.Errorf("unknown users subcommand %q", sub))
	}
}

func usersCreate(args []string) (command, error) {
	fs := newFlags("users create")
	var tenant string
	var in client.UserInput
	fs.StringVar(&tenant, "tenant", "", "tenant id")
	fs.StringVar(&in.Email, "email", "", "the user's email (the sign-in name)")
	fs.StringVar(&in.Name, "name", "", "the user's name")
	fs.StringVar(&in.Role, "role", "", "role: owner, developer, finance or support")
	pos, err := parse(fs, args)
	if err != nil {
		return nil, err
	}
	if err := errors.Join(expectArgs("users create", pos), required("users create", "tenant", tenant),
		required("users create", "email", in.Email), required("users create", "name", in.Name),
		required("users create", "role", in.Role)); err != nil {
		return nil, err
	}
	return func(ctx context.Context, c *cli) error {
		u, err := c.admin.CreateUser(ctx, tenant, in)
		if err != nil {
			return err
		}
		return c.print(u)
	}, nil
}

func usersList(args []string) (command, error) {
	return tenantList("users list", args, (*client.Admin).ListUsers, func(tw *tabwriter.Writer, page *client.UserPage) {
		row(tw, "ID", "EMAIL", "NAME", "ROLE", "STATUS")
		for _, u := range page.Data {
			status := "active"
			switch {
			case u.DisabledAt != nil:
				status = "disabled"
			case !u.PasswordSet:
				status = "invited"
			}
			row(tw, u.ID, u.Email, u.Name, u.Role, status)
		}
		footer(tw, page.Meta, "users")
	})
}

func usersDisable(args []string) (command, error) {
	fs := newFlags("users disable")
	var tenant string
	fs.StringVar(&tenant, "tenant", "", "tenant id")
	pos, err := parse(fs, args)
	if err != nil {
		return nil, err
	}
	if err := errors.Join(expectArgs("users disable", pos, "USER_ID"), required("users disable", "tenant", tenant)); err != nil {
		return nil, err
	}
	return func(ctx context.Context, c *cli) error {
		u, err := c.admin.DisableUser(ctx, tenant, pos[0])
		if err != nil {
			return err
		}
		return c.print(u)
	}, nil
}
