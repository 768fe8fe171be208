package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
)

func messagesCommand(args []string) (command, error) {
	fs := newFlags("messages")
	var tenant, to string
	fs.StringVar(&tenant, "tenant", "", "tenant id")
	fs.StringVar(&to, "to", "", "only messages to this number (E.164)")
	pos, err := parse(fs, args)
	if err != nil {
		return nil, err
	}
	if err := expectArgs("messages", pos); err != nil {
		return nil, err
	}
	if err := required("messages", "tenant", tenant); err != nil {
		return nil, err
	}
	path := "/admin/v1/tenants/" + url.PathEscape(tenant) + "/messages"
	if to != "" {
		path += "?" + url.Values{"to": {to}}.Encode()
	}
	return func(ctx context.Context, c *cli) error {
		var out json.RawMessage
		if err := c.admin.Do(ctx, http.MethodGet, path, nil, &out); err != nil {
			return err
		}
		return c.print(out)
	}, nil
}
