package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"text/tabwriter"

	"github.com/paylane/paylane/identity-svc/client"
)

// message is what the table shows of a stored SMS.
type message struct {
	CreatedAt string `json:"created_at"`
	To        string `json:"to"`
	Status    string `json:"status"`
	Body      string `json:"body"`
}

func messagesCommand(args []string) (command, error) {
	fs := newFlags("messages")
	var tenant, to string
	var page, perPage int
	var out output
	fs.StringVar(&tenant, "tenant", "", "tenant id")
	fs.StringVar(&to, "to", "", "only messages to this number (E.164)")
	fs.IntVar(&page, "page", 0, "page number")
	fs.IntVar(&perPage, "per-page", 0, "page size (at most 100)")
	addOutput(fs, &out)
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
	q := url.Values{}
	if to != "" {
		q.Set("to", to)
	}
	if page > 0 {
		q.Set("page", strconv.Itoa(page))
	}
	if perPage > 0 {
		q.Set("per_page", strconv.Itoa(perPage))
	}
	path := "/admin/v1/tenants/" + url.PathEscape(tenant) + "/messages"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	return func(ctx context.Context, c *cli) error {
		var raw json.RawMessage
		if err := c.admin.Do(ctx, http.MethodGet, path, nil, &raw); err != nil {
			return err
		}
		if c.format(out) == formatJSON {
			return c.print(raw)
		}
		var list struct {
			Data []message   `json:"data"`
			Meta client.Meta `json:"meta"`
		}
		if err := json.Unmarshal(raw, &list); err != nil {
			return fmt.Errorf("reading the answer: %w", err)
		}
		return c.show(out, raw, func(tw *tabwriter.Writer) {
			// The body last and whole: a person copies the link from it.
			row(tw, "CREATED", "TO", "STATUS", "BODY")
			for _, m := range list.Data {
				row(tw, m.CreatedAt, m.To, m.Status, m.Body)
			}
			footer(tw, list.Meta, "messages")
		})
	}, nil
}
