package outbox_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/outbox"
)

func TestAddManyWritesEveryEventInOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t)
	var envs []events.Envelope
	var want []string
	for _, typ := range []string{"receivable.created", "notification.requested", "payable.created"} {
		env, err := events.New(typ, "tenant-1", "req", map[string]string{"type": typ})
		if err != nil {
			t.Fatal(err)
		}
		envs = append(envs, env)
		want = append(want, env.ID+" "+events.TopicFor(typ)+" tenant-1 "+typ)
	}
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := outbox.AddMany(ctx, tx, nil); err != nil {
			return err
		}
		return outbox.AddMany(ctx, tx, envs)
	})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := pool.Query(ctx, `SELECT event_id || ' ' || topic || ' ' || key || ' ' || (payload->>'type') FROM outbox ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outbox rows (-want +got):\n%s", diff)
	}

	bad, err := events.New("no.such.domain.type", "tenant-1", "req", nil)
	if err != nil {
		t.Fatal(err)
	}
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return outbox.AddMany(ctx, tx, []events.Envelope{envs[0], bad}) })
	if err == nil {
		t.Error("AddMany with an event of no topic succeeded")
	}
}
