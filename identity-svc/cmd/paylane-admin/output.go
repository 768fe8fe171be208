package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/term"

	"github.com/paylane/paylane/identity-svc/client"
)

// Output formats of --output.
const (
	formatJSON  = "json"
	formatTable = "table"
)

// output is the value of an --output flag: "" until given.
type output struct{ format string }

func (o *output) String() string { return o.format }

// Set implements flag.Value.
func (o *output) Set(s string) error {
	if s != formatJSON && s != formatTable {
		return fmt.Errorf("want json or table, got %q", s)
	}
	o.format = s
	return nil
}

// addOutput gives a command its --output (-o) flag.
func addOutput(fs *flag.FlagSet, o *output) {
	fs.Var(o, "output", "`format` of the output, json or table (default: table when stdout is a terminal, else json)")
	fs.Var(o, "o", "shorthand for --output `format`")
}

// isTerminal reports whether w is a terminal: people read a table there,
// while a pipe or a file gets JSON for programs.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// format decides the output of a command: its own --output, else the one
// given before the command, else table on a terminal and JSON otherwise.
func (c *cli) format(own output) string {
	switch {
	case own.format != "":
		return own.format
	case c.output.format != "":
		return c.output.format
	case c.terminal:
		return formatTable
	}
	return formatJSON
}

// show prints v as JSON or, for a table, calls rows to fill one.
func (c *cli) show(own output, v any, table func(*tabwriter.Writer)) error {
	if c.format(own) == formatJSON {
		return c.print(v)
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	table(tw)
	return tw.Flush()
}

// row writes one tab-separated line.
func row(tw *tabwriter.Writer, cells ...string) {
	for i, cell := range cells {
		// A tab or newline inside a cell would break the columns.
		cells[i] = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(cell)
	}
	fmt.Fprintln(tw, strings.Join(cells, "\t"))
}

// footer says which page a table shows, when there are several.
func footer(tw *tabwriter.Writer, m client.Meta, noun string) {
	if m.LastPage > 1 {
		fmt.Fprintf(tw, "\npage %d of %d (%d %s; --page N for another)\n", m.CurrentPage, m.LastPage, m.Total, noun)
	} else if m.Total == 0 {
		fmt.Fprintf(tw, "(no %s)\n", noun)
	}
}

func stamp(t *time.Time) string {
	if t == nil || t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

func orDash(s *string) string {
	if s == nil || *s == "" {
		return "-"
	}
	return *s
}

// minor prints an amount in minor units, or "-" for none.
func minor(v *int64) string {
	if v == nil {
		return "-"
	}
	return strconv.FormatInt(*v, 10)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func tenantRows(tw *tabwriter.Writer, ts []client.Tenant) {
	row(tw, "ID", "NAME", "CURRENCY", "REGION", "SMS NUMBER", "AI GATEWAY", "OPT-IN", "API RPM", "CREATED")
	for _, t := range ts {
		row(tw, t.ID, t.Name, t.DefaultCurrency, t.DefaultRegion, orDash(t.SMSNumber), yesNo(t.Flags.AIGateway),
			yesNo(t.Flags.OptIn), strconv.Itoa(t.Limits.APIRequestsPerMinute), stamp(&t.CreatedAt))
	}
}

// tenantDetail is one tenant as "field value" lines.
func tenantDetail(tw *tabwriter.Writer, t client.Tenant) {
	row(tw, "ID", t.ID)
	row(tw, "NAME", t.Name)
	row(tw, "CURRENCY", t.DefaultCurrency)
	row(tw, "REGION", t.DefaultRegion)
	row(tw, "SMS NUMBER", orDash(t.SMSNumber))
	row(tw, "AI GATEWAY", yesNo(t.Flags.AIGateway))
	row(tw, "OPT-IN", yesNo(t.Flags.OptIn))
	row(tw, "API REQUESTS/MIN", strconv.Itoa(t.Limits.APIRequestsPerMinute))
	row(tw, "BATCH SUBMISSIONS/MIN", strconv.Itoa(t.Limits.BatchSubmissionsPerMinute))
	row(tw, "BATCHES IN FLIGHT", strconv.Itoa(t.Limits.BatchesInFlight))
	row(tw, "AI MAX AMOUNT", minor(t.Limits.AIMaxAmount))
	row(tw, "AI DAILY AMOUNT", minor(t.Limits.AIDailyAmount))
	row(tw, "CREATED", stamp(&t.CreatedAt))
	row(tw, "UPDATED", stamp(&t.UpdatedAt))
}

func tokenRows(tw *tabwriter.Writer, ts []client.Token) {
	row(tw, "ID", "NAME", "ABILITIES", "EXPIRES", "LAST USED", "REVOKED", "CREATED")
	for _, t := range ts {
		row(tw, strconv.FormatInt(t.ID, 10), t.Name, abilities(t.Abilities), stamp(t.ExpiresAt), stamp(t.LastUsedAt),
			stamp(t.RevokedAt), stamp(&t.CreatedAt))
	}
}

// abilities shortens a long list for a table cell; --output json has all.
func abilities(a []string) string {
	if len(a) <= 3 {
		return strings.Join(a, ",")
	}
	return strings.Join(a[:2], ",") + fmt.Sprintf(",… (%d)", len(a))
}
