package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"text/tabwriter"

	"github.com/paylane/paylane/identity-svc/client"
)

func tenantsCommand(args []string) (command, error) {
	if len(args) == 0 {
		return nil, usageError(errors.New("tenants needs a subcommand: create, update, list or show"))
	}
	if isHelp(args[0]) {
		return nil, flag.ErrHelp
	}
	switch sub, rest := args[0], args[1:]; sub {
	case "create":
		return tenantsCreate(rest)
	case "update":
		return tenantsUpdate(rest)
	case "list":
		return tenantsList(rest)
	case "show":
		return tenantsShow(rest)
	default:
		return nil, usageError(fmt.Errorf("unknown tenants subcommand %q", sub))
	}
}

// tenantFlags are the flags of tenants create and update.
type tenantFlags struct {
	fs                                *flag.FlagSet
	out                               output
	name, currency, region, smsNumber string
	aiGateway, optIn                  bool
	apiRPM, batchRPM, batchesInFlight int
	aiMaxAmount, aiDailyAmount        int64
}

func newTenantFlags(name string) *tenantFlags {
	f := &tenantFlags{fs: newFlags(name)}
	f.fs.StringVar(&f.name, "name", "", "tenant name")
	f.fs.StringVar(&f.currency, "currency", "", "default currency (ISO 4217, default USD)")
	f.fs.StringVar(&f.region, "region", "", "default region (ISO 3166-1 alpha-2, default US)")
	f.fs.StringVar(&f.smsNumber, "sms-number", "", "SMS sender number (E.164; empty removes it)")
	f.fs.BoolVar(&f.aiGateway, "ai-gateway", false, "ai-gateway flag")
	f.fs.BoolVar(&f.optIn, "opt-in", false, "opt-in flag")
	f.fs.IntVar(&f.apiRPM, "api-rpm", 0, "API requests per minute per token (0: deployment default)")
	f.fs.IntVar(&f.batchRPM, "batch-rpm", 0, "batch submissions per minute (0: deployment default)")
	f.fs.IntVar(&f.batchesInFlight, "batches-in-flight", 0, "batches in flight (0: deployment default)")
	f.fs.Int64Var(&f.aiMaxAmount, "ai-max-amount", 0, "AI gateway: largest transaction, minor units (0: none)")
	f.fs.Int64Var(&f.aiDailyAmount, "ai-daily-amount", 0, "AI gateway: confirmed per UTC day, minor units (0: none)")
	addOutput(f.fs, &f.out)
	return f
}

// input returns the body with only the flags given on the command line.
func (f *tenantFlags) input() client.TenantInput {
	var in client.TenantInput
	str := func(flagName string, v string) *string {
		if !isSet(f.fs, flagName) {
			return nil
		}
		return &v
	}
	in.Name = str("name", f.name)
	in.DefaultCurrency = str("currency", f.currency)
	in.DefaultRegion = str("region", f.region)
	in.SMSNumber = str("sms-number", f.smsNumber)
	var flags client.FlagsInput
	if isSet(f.fs, "ai-gateway") {
		flags.AIGateway = &f.aiGateway
	}
	if isSet(f.fs, "opt-in") {
		flags.OptIn = &f.optIn
	}
	if flags != (client.FlagsInput{}) {
		in.Flags = &flags
	}
	var limits client.LimitsInput
	num := func(flagName string, v *int) *int {
		if !isSet(f.fs, flagName) {
			return nil
		}
		return v
	}
	limits.APIRequestsPerMinute = num("api-rpm", &f.apiRPM)
	limits.BatchSubmissionsPerMinute = num("batch-rpm", &f.batchRPM)
	limits.BatchesInFlight = num("batches-in-flight", &f.batchesInFlight)
	if isSet(f.fs, "ai-max-amount") {
		limits.AIMaxAmount = &f.aiMaxAmount
	}
	if isSet(f.fs, "ai-daily-amount") {
		limits.AIDailyAmount = &f.aiDailyAmount
	}
	if limits != (client.LimitsInput{}) {
		in.Limits = &limits
	}
	return in
}

func tenantsCreate(args []string) (command, error) {
	f := newTenantFlags("tenants create")
	pos, err := parse(f.fs, args)
	if err != nil {
		return nil, err
	}
	if err := expectArgs("tenants create", pos); err != nil {
		return nil, err
	}
	if err := required("tenants create", "name", f.name); err != nil {
		return nil, err
	}
	in := f.input()
	return func(ctx context.Context, c *cli) error {
		t, err := c.admin.CreateTenant(ctx, in)
		if err != nil {
			return err
		}
		return c.show(f.out, t, func(tw *tabwriter.Writer) { tenantDetail(tw, *t) })
	}, nil
}

func tenantsUpdate(args []string) (command, error) {
	f := newTenantFlags("tenants update")
	pos, err := parse(f.fs, args)
	if err != nil {
		return nil, err
	}
	if err := expectArgs("tenants update", pos, "TENANT_ID"); err != nil {
		return nil, err
	}
	in := f.input()
	return func(ctx context.Context, c *cli) error {
		t, err := c.admin.UpdateTenant(ctx, pos[0], in)
		if err != nil {
			return err
		}
		return c.show(f.out, t, func(tw *tabwriter.Writer) { tenantDetail(tw, *t) })
	}, nil
}

func tenantsList(args []string) (command, error) {
	fs := newFlags("tenants list")
	var opts client.ListOptions
	var out output
	fs.IntVar(&opts.Page, "page", 0, "page number")
	fs.IntVar(&opts.PerPage, "per-page", 0, "page size (at most 100)")
	addOutput(fs, &out)
	pos, err := parse(fs, args)
	if err != nil {
		return nil, err
	}
	if err := expectArgs("tenants list", pos); err != nil {
		return nil, err
	}
	return func(ctx context.Context, c *cli) error {
		page, err := c.admin.ListTenants(ctx, opts)
		if err != nil {
			return err
		}
		return c.show(out, page, func(tw *tabwriter.Writer) {
			tenantRows(tw, page.Data)
			footer(tw, page.Meta, "tenants")
		})
	}, nil
}

func tenantsShow(args []string) (command, error) {
	fs := newFlags("tenants show")
	var out output
	addOutput(fs, &out)
	pos, err := parse(fs, args)
	if err != nil {
		return nil, err
	}
	if err := expectArgs("tenants show", pos, "TENANT_ID"); err != nil {
		return nil, err
	}
	return func(ctx context.Context, c *cli) error {
		t, err := c.admin.GetTenant(ctx, pos[0])
		if err != nil {
			return err
		}
		return c.show(out, t, func(tw *tabwriter.Writer) { tenantDetail(tw, *t) })
	}, nil
}
