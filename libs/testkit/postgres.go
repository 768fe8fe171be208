package testkit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paylane/paylane/libs/pgcluster"
	"github.com/paylane/paylane/libs/pgdb"
)

// Postgres is the throwaway cluster of a test binary.
type Postgres struct {
	cluster *pgcluster.Cluster
	admin   *pgxpool.Pool // superuser, database postgres

	mu        sync.Mutex
	templates map[string]*template // by template key (name and sets)
	owners    map[string]string    // app DSN → owner DSN of each test database
	cloneMu   sync.Mutex           // Postgres refuses concurrent clones of one template
	seq       atomic.Int64
}

// template is a migrated database that per-test databases are cloned from.
type template struct {
	once     sync.Once
	name     string
	ownerDSN string
	appDSN   string
	err      error
}

// Cluster returns the underlying cluster (its superuser DSN, for instance).
func (p *Postgres) Cluster() *pgcluster.Cluster { return p.cluster }

// Database returns the app-role DSN of a new database for this test, dropped at
// cleanup. The database is a clone of a template migrated with sets once per
// (name, set names) in this binary. As in production, the app role owns no
// table and has only the DML grants pgdb.Migrate gives it, so row-level
// security applies to it; OwnerDSN gives the owner's DSN of the same database.
func (p *Postgres) Database(t testing.TB, name string, sets ...pgdb.MigrationSet) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tpl := p.template(name, sets)
	tpl.once.Do(func() { tpl.err = p.migrateTemplate(ctx, tpl, sets) })
	if tpl.err != nil {
		t.Fatalf("testkit: template database %s: %v", tpl.name, tpl.err)
	}
	db := tpl.name + "_" + strconv.FormatInt(p.seq.Add(1), 10)
	if err := p.clone(ctx, db, tpl); err != nil {
		t.Fatalf("testkit: %v", err)
	}
	appDSN, ownerDSN := withDatabase(tpl.appDSN, db), withDatabase(tpl.ownerDSN, db)
	p.mu.Lock()
	p.owners[appDSN] = ownerDSN
	p.mu.Unlock()
	t.Cleanup(func() {
		p.mu.Lock()
		delete(p.owners, appDSN)
		p.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := p.admin.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{db}.Sanitize()+" WITH (FORCE)"); err != nil {
			t.Errorf("testkit: dropping database %s: %v", db, err)
		}
	})
	return appDSN
}

// OwnerDSN returns the owner-role DSN of the database of appDSN, which Database
// returned: for tests that need to see past row-level security.
func (p *Postgres) OwnerDSN(t testing.TB, appDSN string) string {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	owner, ok := p.owners[appDSN]
	if !ok {
		t.Fatalf("testkit: OwnerDSN: %s is not a DSN from Database", appDSN)
	}
	return owner
}

// Pool returns a pool for dsn (up to 8 connections), closed at cleanup.
func (p *Postgres) Pool(t testing.TB, dsn string) *pgxpool.Pool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool, err := pgdb.Open(ctx, dsn, 8)
	if err != nil {
		t.Fatalf("testkit: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func (p *Postgres) template(name string, sets []pgdb.MigrationSet) *template {
	key := name
	for _, s := range sets {
		key += "\x00" + s.Name
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	tpl, ok := p.templates[key]
	if !ok {
		sum := sha256.Sum256([]byte(key))
		tpl = &template{name: "tk_" + identPart(name) + "_" + hex.EncodeToString(sum[:3])}
		p.templates[key] = tpl
	}
	return tpl
}

func (p *Postgres) migrateTemplate(ctx context.Context, tpl *template, sets []pgdb.MigrationSet) error {
	ownerDSN, appDSN, err := pgcluster.ServiceDB(ctx, p.cluster, tpl.name)
	if err != nil {
		return err
	}
	if err := pgdb.Migrate(ctx, ownerDSN, pgdb.AppRole(appDSN), sets...); err != nil {
		return err
	}
	tpl.ownerDSN, tpl.appDSN = ownerDSN, appDSN
	return nil
}

func (p *Postgres) clone(ctx context.Context, db string, tpl *template) error {
	p.cloneMu.Lock()
	defer p.cloneMu.Unlock()
	sql := fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s OWNER %s",
		pgx.Identifier{db}.Sanitize(), pgx.Identifier{tpl.name}.Sanitize(), pgx.Identifier{tpl.name + "_owner"}.Sanitize())
	if _, err := p.admin.Exec(ctx, sql); err != nil {
		return fmt.Errorf("cloning %s: %w", tpl.name, err)
	}
	return nil
}

var nonIdent = regexp.MustCompile(`[^a-z0-9_]+`)

// identPart turns a test's database name into a short identifier fragment.
func identPart(name string) string {
	s := nonIdent.ReplaceAllString(strings.ToLower(name), "_")
	if len(s) > 24 {
		s = s[:24]
	}
	if s == "" {
		s = "db"
	}
	return s
}

// withDatabase returns dsn (a URL from pgcluster) naming database db instead.
func withDatabase(dsn, db string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		panic(fmt.Errorf("testkit: dsn from pgcluster does not parse: %w", err))
	}
	u.Path = "/" + db
	return u.String()
}
