package testkit_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/segmentio/kafka-go"

	"github.com/paylane/paylane/libs/pgdb"
	"github.com/paylane/paylane/libs/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func notes() pgdb.MigrationSet {
	return pgdb.MigrationSet{Name: "notes", FS: os.DirFS("testdata/migrations")}
}

func TestDatabaseIsMigratedIsolatedAndOwnedByOthers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pg := testkit.PG(t)
	dsnA := pg.Database(t, "notes", notes())
	dsnB := pg.Database(t, "notes", notes())
	if dsnA == dsnB {
		t.Fatalf("two tests got one database: %s", dsnA)
	}
	a, b := pg.Pool(t, dsnA), pg.Pool(t, dsnB)

	if _, err := a.Exec(ctx, "INSERT INTO notes (body) VALUES ('only in a')"); err != nil {
		t.Fatalf("app role insert: %v", err)
	}
	var n int
	if err := b.QueryRow(ctx, "SELECT count(*) FROM notes").Scan(&n); err != nil || n != 0 {
		t.Fatalf("other database sees %d notes, %v", n, err)
	}
	var owner string
	if err := a.QueryRow(ctx, "SELECT tableowner FROM pg_tables WHERE tablename = 'notes'").Scan(&owner); err != nil {
		t.Fatal(err)
	}
	if owner == pgdb.AppRole(dsnA) {
		t.Fatalf("app role %s owns the table", owner)
	}
	if _, err := a.Exec(ctx, "CREATE TABLE extra (id int)"); !hasCode(err, "42501") {
		t.Fatalf("app role CREATE TABLE: %v; want insufficient_privilege", err)
	}
	ownerPool := pg.Pool(t, pg.OwnerDSN(t, dsnA))
	if _, err := ownerPool.Exec(ctx, "ALTER TABLE notes ADD COLUMN extra text"); err != nil {
		t.Fatalf("owner ALTER TABLE: %v", err)
	}
}

func TestDatabaseIsDroppedAtCleanup(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pg := testkit.PG(t)
	var dbName string
	t.Run("uses a database", func(t *testing.T) {
		pool := pg.Pool(t, pg.Database(t, "notes", notes()))
		if err := pool.QueryRow(ctx, "SELECT current_database()").Scan(&dbName); err != nil {
			t.Fatal(err)
		}
	})
	conn, err := pgx.Connect(ctx, pg.Cluster().SuperuserDSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", dbName).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if dbName == "" || exists {
		t.Fatalf("database %q still exists after its test", dbName)
	}
}

func TestBrokerWorksWithKafkaGo(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	brokers := testkit.Broker(t)
	w := &kafka.Writer{
		Addr:                   kafka.TCP(brokers...),
		RequiredAcks:           kafka.RequireAll,
		AllowAutoTopicCreation: true,
		BatchTimeout:           time.Millisecond,
	}
	defer w.Close()
	want := map[string]string{"t1": "one", "t2": "two", "t3": "three"}
	for k, v := range want {
		if err := w.WriteMessages(ctx, kafka.Message{Topic: "testkit.demo", Key: []byte(k), Value: []byte(v)}); err != nil {
			t.Fatalf("write: %v", err)
		}
	}
	r := kafka.NewReader(kafka.ReaderConfig{
		Brokers: brokers, GroupID: "demo", GroupTopics: []string{"testkit.demo"},
		StartOffset: kafka.FirstOffset, MaxWait: 200 * time.Millisecond,
	})
	defer r.Close()
	got := map[string]string{}
	for len(got) < len(want) {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			t.Fatalf("fetch: %v (got %v)", err, got)
		}
		got[string(m.Key)] = string(m.Value)
		if err := r.CommitMessages(ctx, m); err != nil {
			t.Fatalf("commit: %v", err)
		}
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("key %s: got %q, want %q", k, got[k], v)
		}
	}
}

func hasCode(err error, code string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == code
}
