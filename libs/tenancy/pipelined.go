package tenancy

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Pipelined is Do for hot write paths: fn's transaction sends its statements
// as late as it can, so that each round trip carries several of them.
//
//   - BEGIN and the tenant scope travel with the first statement fn sends;
//   - statements queued with Defer (those whose result nobody waits for: an
//     outbox insert, a stored response) travel with the next statement, or
//     with COMMIT;
//   - a savepoint (tx.Begin) is queued too: RELEASE and ROLLBACK TO are sent
//     with what follows, and rolling back a savepoint drops what it queued
//     (and the SAVEPOINT itself when it was never sent).
//
// A queued statement that fails fails the statement it travelled with (or the
// commit) with its own error, and the transaction is rolled back. After a
// successful commit the functions registered with OnCommit run, in order.
// Like Do, Pipelined commits when fn returns nil and rolls back otherwise
// (also when fn panics).
//
// The pgx.Tx fn receives sends every statement on its own connection, except
// LargeObjects (not supported) and Conn: a statement sent on Conn() directly
// skips the queue, so call Flush first.
func Pipelined(ctx context.Context, pool *pgxpool.Pool, tenantID string, fn func(pgx.Tx) error) (err error) {
	if err := validTenantID(tenantID); err != nil {
		return err
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("acquiring connection: %w", err)
	}
	defer conn.Release()
	p := &pipeline{conn: conn.Conn()}
	p.queue(&pgx.QueuedQuery{SQL: "BEGIN"})
	p.queue(&pgx.QueuedQuery{SQL: "SELECT set_config('" + Setting + "', $1, true)", Arguments: []any{tenantID}})
	tx := &pipeTx{p: p}
	defer func() {
		if r := recover(); r != nil {
			_ = tx.Rollback(ctx)
			panic(r)
		}
	}()
	if err := fn(tx); err != nil {
		_ = tx.Rollback(ctx)
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		_ = tx.rollbackOuter(ctx)
		return err
	}
	for _, hook := range p.hooks {
		hook()
	}
	return nil
}

// Defer queues sql to be sent with tx's next statement or its commit when tx
// is a transaction of Pipelined (or a savepoint in one), and runs it at once
// otherwise. Its error, if any, is returned by whichever call sends it. The
// arguments are encoded when sent: the caller must not change them meanwhile.
func Defer(ctx context.Context, tx pgx.Tx, sql string, args ...any) error {
	if t, ok := tx.(*pipeTx); ok && !t.closed && directOption(args) == nil {
		t.p.queue(&pgx.QueuedQuery{SQL: sql, Arguments: args})
		return nil
	}
	_, err := tx.Exec(ctx, sql, args...)
	return err
}

// Queue is Defer for a statement whose result matters: qq, with the
// callback set by its Exec, Query or QueryRow (or its Fn), is queued on tx
// when tx is a transaction of Pipelined (or a savepoint in one), and Queue
// reports whether it was. The callback runs when the statement's result
// arrives; if the statement fails, a callback set with Exec, Query or
// QueryRow does not run (set Fn to see the error), and the error is
// returned by whichever call sent it.
func Queue(tx pgx.Tx, qq *pgx.QueuedQuery) bool {
	t, ok := tx.(*pipeTx)
	if !ok || t.closed || directOption(qq.Arguments) != nil {
		return false
	}
	t.p.queue(qq)
	return true
}

// Flush sends the statements tx has queued (a no-op for other transactions).
func Flush(ctx context.Context, tx pgx.Tx) error {
	if t, ok := tx.(*pipeTx); ok && !t.closed {
		return t.p.flush(ctx)
	}
	return nil
}

// OnCommit registers fn to run after tx's transaction commits, when tx is a
// transaction of Pipelined (or a savepoint in one), and reports whether it
// did; fn is dropped with a savepoint rolled back. Use it for signals that
// must not precede the commit, such as waking the outbox relay.
func OnCommit(tx pgx.Tx, fn func()) bool {
	t, ok := tx.(*pipeTx)
	if !ok || t.closed {
		return false
	}
	t.p.hooks = append(t.p.hooks, fn)
	return true
}

// pipeline is the connection of a Pipelined transaction and what waits to be
// sent on it.
type pipeline struct {
	conn    *pgx.Conn
	pending []*pgx.QueuedQuery
	hooks   []func()
	// flushes counts the sends, so a savepoint knows whether its SAVEPOINT
	// is still queued.
	flushes    int
	savepoints int
}

func (p *pipeline) queue(qq *pgx.QueuedQuery) { p.pending = append(p.pending, qq) }

// send sends the pending statements followed by last (which may be nil) in
// one batch and runs the pending statements' callbacks. On success the
// results of last are next in the returned BatchResults, which the caller
// must close.
func (p *pipeline) send(ctx context.Context, last *pgx.QueuedQuery) (pgx.BatchResults, error) {
	b := &pgx.Batch{QueuedQueries: p.pending}
	n := len(p.pending)
	if last != nil {
		b.QueuedQueries = append(b.QueuedQueries, last)
	}
	p.pending = nil
	p.flushes++
	br := p.conn.SendBatch(ctx, b)
	for _, qq := range b.QueuedQueries[:n] {
		var err error
		if qq.Fn != nil {
			err = qq.Fn(br)
		} else {
			_, err = br.Exec()
		}
		if err != nil {
			_ = br.Close()
			return nil, err
		}
	}
	return br, nil
}

// flush sends the pending statements, if any.
func (p *pipeline) flush(ctx context.Context) error {
	if len(p.pending) == 0 {
		return nil
	}
	br, err := p.send(ctx, nil)
	if err != nil {
		return err
	}
	return br.Close()
}

// pipeTx is a Pipelined transaction (savepoint == "") or a savepoint in one.
type pipeTx struct {
	p         *pipeline
	savepoint string
	// queuedAt is where the SAVEPOINT statement sits in p.pending as long as
	// p.flushes equals flushesAt; hooksAt is len(p.hooks) when it opened.
	queuedAt, flushesAt, hooksAt int
	closed                       bool
}

var _ pgx.Tx = (*pipeTx)(nil)

// Begin opens a savepoint; SAVEPOINT is queued, not sent.
func (t *pipeTx) Begin(ctx context.Context) (pgx.Tx, error) {
	if t.closed {
		return nil, pgx.ErrTxClosed
	}
	t.p.savepoints++
	sp := &pipeTx{
		p: t.p, savepoint: fmt.Sprintf("sp_%d", t.p.savepoints),
		queuedAt: len(t.p.pending), flushesAt: t.p.flushes, hooksAt: len(t.p.hooks),
	}
	t.p.queue(&pgx.QueuedQuery{SQL: "SAVEPOINT " + sp.savepoint})
	return sp, nil
}

// Commit releases the savepoint (queued) or commits the transaction with
// everything still queued, in one round trip.
func (t *pipeTx) Commit(ctx context.Context) error {
	if t.closed {
		return pgx.ErrTxClosed
	}
	t.closed = true
	if t.savepoint != "" {
		t.p.queue(&pgx.QueuedQuery{SQL: "RELEASE SAVEPOINT " + t.savepoint})
		return nil
	}
	if t.p.flushes == 0 && len(t.p.pending) == 2 {
		t.p.pending = nil // BEGIN and the scope only: nothing to commit
		return nil
	}
	commit := &pgx.QueuedQuery{SQL: "COMMIT"}
	commit.Exec(func(tag pgconn.CommandTag) error {
		if tag.String() == "ROLLBACK" {
			return pgx.ErrTxCommitRollback
		}
		return nil
	})
	br, err := t.p.send(ctx, commit)
	if err != nil {
		return err
	}
	return br.Close()
}

// Rollback drops what the transaction or savepoint queued and undoes what it
// sent: ROLLBACK at once for the transaction, ROLLBACK TO for a savepoint
// whose SAVEPOINT was sent (queued, unless a statement failed since: then at
// once).
func (t *pipeTx) Rollback(ctx context.Context) error {
	if t.closed {
		return pgx.ErrTxClosed
	}
	t.closed = true
	if t.savepoint == "" {
		return t.rollbackOuter(ctx)
	}
	t.p.hooks = t.p.hooks[:t.hooksAt]
	if t.p.flushes == t.flushesAt {
		t.p.pending = t.p.pending[:t.queuedAt] // SAVEPOINT never sent
		return nil
	}
	// Every statement still queued was queued after SAVEPOINT was sent.
	t.p.pending = nil
	rollback := "ROLLBACK TO SAVEPOINT " + t.savepoint
	if t.p.conn.PgConn().TxStatus() == 'E' {
		// A failed transaction refuses to even prepare what would travel
		// with ROLLBACK TO: recover it first.
		if _, err := t.p.conn.Exec(ctx, rollback); err != nil {
			return fmt.Errorf("rolling back to savepoint: %w", err)
		}
		return nil
	}
	t.p.queue(&pgx.QueuedQuery{SQL: rollback})
	return nil
}

// rollbackOuter ends the transaction on the server, if it began there.
func (t *pipeTx) rollbackOuter(ctx context.Context) error {
	t.closed = true
	t.p.pending, t.p.hooks = nil, nil
	if t.p.conn.PgConn().TxStatus() == 'I' {
		return nil
	}
	if _, err := t.p.conn.Exec(ctx, "ROLLBACK"); err != nil {
		_ = t.p.conn.Close(ctx) // broken: the pool drops it
		return err
	}
	return nil
}

// Exec sends the queued statements and sql in one round trip.
func (t *pipeTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if err := t.ready(ctx, args); err != nil {
		return pgconn.CommandTag{}, err
	}
	if len(t.p.pending) == 0 {
		return t.p.conn.Exec(ctx, sql, args...)
	}
	br, err := t.p.send(ctx, &pgx.QueuedQuery{SQL: sql, Arguments: args})
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	tag, err := br.Exec()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return tag, err
}

// Query sends the queued statements and sql in one round trip.
func (t *pipeTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if err := t.ready(ctx, args); err != nil {
		return errRows{err}, err
	}
	if len(t.p.pending) == 0 {
		return t.p.conn.Query(ctx, sql, args...)
	}
	br, err := t.p.send(ctx, &pgx.QueuedQuery{SQL: sql, Arguments: args})
	if err != nil {
		return errRows{err}, err
	}
	rows, err := br.Query()
	if err != nil {
		_ = br.Close()
		return errRows{err}, err
	}
	return &batchRows{Rows: rows, br: br}, nil
}

// QueryRow is Query for one row.
func (t *pipeTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	rows, err := t.Query(ctx, sql, args...)
	return &row{rows: rows, err: err}
}

// ready refuses a closed transaction, and sends the queue first when args
// carry a pgx option a batch cannot (the statement then goes alone).
func (t *pipeTx) ready(ctx context.Context, args []any) error {
	if t.closed {
		return pgx.ErrTxClosed
	}
	if err := directOption(args); err != nil {
		return t.p.flush(ctx)
	}
	return nil
}

// CopyFrom sends the queue, then copies.
func (t *pipeTx) CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error) {
	if t.closed {
		return 0, pgx.ErrTxClosed
	}
	if err := t.p.flush(ctx); err != nil {
		return 0, err
	}
	return t.p.conn.CopyFrom(ctx, table, columns, src)
}

// SendBatch sends the queue, then b.
func (t *pipeTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	if t.closed {
		return errBatch{pgx.ErrTxClosed}
	}
	if err := t.p.flush(ctx); err != nil {
		return errBatch{err}
	}
	return t.p.conn.SendBatch(ctx, b)
}

// Prepare sends the queue, then prepares.
func (t *pipeTx) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	if t.closed {
		return nil, pgx.ErrTxClosed
	}
	if err := t.p.flush(ctx); err != nil {
		return nil, err
	}
	return t.p.conn.Prepare(ctx, name, sql)
}

// LargeObjects is not supported by a Pipelined transaction.
func (t *pipeTx) LargeObjects() pgx.LargeObjects { return pgx.LargeObjects{} }

// Conn is the transaction's connection; statements sent on it skip the queue.
func (t *pipeTx) Conn() *pgx.Conn { return t.p.conn }

// directOption reports a pgx query option a batch does not accept (only a
// QueryRewriter is).
func directOption(args []any) error {
	if len(args) == 0 {
		return nil
	}
	switch args[0].(type) {
	case pgx.QueryExecMode, pgx.QueryResultFormats, pgx.QueryResultFormatsByOID:
		return errors.New("tenancy: query option outside a batch")
	}
	return nil
}

// batchRows are the rows of the last statement of a batch; closing them
// closes the batch.
type batchRows struct {
	pgx.Rows
	br  pgx.BatchResults
	err error
}

func (r *batchRows) Close() {
	r.Rows.Close()
	if r.br != nil {
		r.err = r.br.Close()
		r.br = nil
	}
}

func (r *batchRows) Err() error {
	if err := r.Rows.Err(); err != nil {
		return err
	}
	return r.err
}

// row reads the first row of rows, as pgx's QueryRow does.
type row struct {
	rows pgx.Rows
	err  error
}

func (r *row) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	defer r.rows.Close()
	if !r.rows.Next() {
		r.rows.Close()
		if err := r.rows.Err(); err != nil {
			return err
		}
		return pgx.ErrNoRows
	}
	if err := r.rows.Scan(dest...); err != nil {
		return err
	}
	r.rows.Close()
	return r.rows.Err()
}

// errRows are the rows of a statement that was not sent.
type errRows struct{ err error }

func (errRows) Close()                                       {}
func (e errRows) Err() error                                 { return e.err }
func (errRows) CommandTag() pgconn.CommandTag                { return pgconn.CommandTag{} }
func (errRows) FieldDescriptions() []pgconn.FieldDescription { return nil }
func (errRows) Next() bool                                   { return false }
func (e errRows) Scan(...any) error                          { return e.err }
func (e errRows) Values() ([]any, error)                     { return nil, e.err }
func (errRows) RawValues() [][]byte                          { return nil }
func (errRows) Conn() *pgx.Conn                              { return nil }
func (errRows) TypeMap() *pgtype.Map                         { return nil }

// errBatch are the results of a batch that was not sent.
type errBatch struct{ err error }

func (e errBatch) Exec() (pgconn.CommandTag, error) { return pgconn.CommandTag{}, e.err }
func (e errBatch) Query() (pgx.Rows, error)         { return errRows(e), e.err }
func (e errBatch) QueryRow() pgx.Row                { return &row{err: e.err} }
func (e errBatch) Close() error                     { return e.err }
func (errBatch) Tx() pgx.Tx                         { return nil }
