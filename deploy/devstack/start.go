package devstack

import (
	"context"
	"fmt"
	"net"

	"golang.org/x/sync/errgroup"

	"github.com/paylane/paylane/libs/obs"
	"github.com/paylane/paylane/libs/pgcluster"
)

// ready is a service's report that it listens.
type ready struct{ name, addr string }

// startServices starts the table's services stage by stage in g and
// returns each one's bound HTTP address once all are ready. It returns early
// when ctx is done (the group's context: a service failed or the stack is
// stopping).
func (s *stack) startServices(ctx context.Context, g *errgroup.Group) (map[string]string, error) {
	rows := services()
	// Every service's address is settled before any starts, so services
	// that call each other (contacts reads opt-in standings from optin,
	// optin creates contacts through contacts) know the other's URL whatever
	// the start order; stages only order readiness (identity's keys first).
	// Each address is bound here and the listener handed to its service, so
	// no address can be picked twice or taken before its service starts.
	planned := make(map[string]string, len(rows))
	listeners := make(map[string]net.Listener, len(rows))
	for _, row := range rows {
		ln, a, err := s.reserve("127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		planned[row.name], listeners[row.name] = a, ln
	}
	addrs := make(map[string]string, len(rows))
	for stage := 0; stage <= lastStage(rows); stage++ {
		readyCh := make(chan ready, len(rows))
		n := 0
		for _, row := range rows {
			if row.stage != stage {
				continue
			}
			d, err := s.depsFor(ctx, row, planned)
			if err != nil {
				return nil, err
			}
			d.httpListener = listeners[row.name]
			s.logf("starting %s-svc", row.name)
			g.Go(func() error {
				err := row.run(ctx, d, func(addr string) { readyCh <- ready{row.name, addr} })
				return exitError(ctx, row.name+"-svc", err)
			})
			n++
		}
		for range n {
			select {
			case r := <-readyCh:
				addrs[r.name] = r.addr
				s.logf("%s-svc listening on %s", r.name, r.addr)
			case <-ctx.Done():
				return nil, fmt.Errorf("starting services: %w", context.Cause(ctx))
			}
		}
	}
	return addrs, nil
}

// depsFor creates the service's database and roles (unless it has none)
// and assembles its deps.
func (s *stack) depsFor(ctx context.Context, row service, addrs map[string]string) (deps, error) {
	name := row.name
	var owner, app string
	if !row.noDatabase {
		var err error
		if owner, app, err = pgcluster.ServiceDB(ctx, s.cluster, name); err != nil {
			return deps{}, fmt.Errorf("database for %s: %w", name, err)
		}
	}
	d := deps{
		ownerDSN:     owner,
		appDSN:       app,
		brokers:      s.brokers,
		secrets:      s.secrets,
		publicURL:    publicBaseURL(s.opts.GatewayAddr),
		caFile:       s.tls.CACert,
		stripeURL:    s.stripeURL,
		internalAddr: "127.0.0.1:0",
		logger:       obs.NewLogger(name+"-svc", s.opts.ServiceLog, s.opts.LogLevel),
	}
	d.httpAddr = addrs[name]
	if a, ok := addrs["identity"]; ok && name != "identity" {
		d.identityURL = "http://" + a
	}
	d.urls = make(map[string]string, len(addrs))
	for n, a := range addrs {
		d.urls[n] = "http://" + a
	}
	return d, nil
}
