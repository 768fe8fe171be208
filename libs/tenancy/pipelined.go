package tenancy

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
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
//     (and the SAVEPOINT itself when it was never sent); releasing one whose
//     SAVEPOINT was never sent drops SAVEPOINT and sends no RELEASE (its
//     statements are then the transaction's own).
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
	tx := &pipeTx{p: newPipeline(conn.Conn(), tenantID)}
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
	for _, hook := range tx.p.hooks {
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

// IsPipelined reports whether tx is an open transaction of Pipelined (or a
// savepoint in one): Defer, Queue and SetLocal then queue instead of sending.
func IsPipelined(tx pgx.Tx) bool {
	t, ok := tx.(*pipeTx)
	return ok && !t.closed
}

// SetLocal sets the configuration parameter name to value for the rest of
// tx's transaction, as SET LOCAL does. In a Pipelined transaction that has
// sent nothing yet it travels in the statement that sets the tenant scope
// (one statement fewer for the server to run); otherwise it is a statement
// of its own, deferred like Defer's. In a savepoint it is always a statement
// of its own, so rolling the savepoint back undoes it.
func SetLocal(ctx context.Context, tx pgx.Tx, name, value string) error {
	if t, ok := tx.(*pipeTx); ok && !t.closed && t.savepoint == "" && t.p.flushes == 0 && t.p.scope != nil {
		s := t.p.scope
		n := len(s.Arguments)
		s.SQL += fmt.Sprintf(", set_config($%d, $%d, true)", n+1, n+2)
		s.Arguments = append(s.Arguments, name, value)
		return nil
	}
	return Defer(ctx, tx, "SELECT set_config($1, $2, true)", name, value)
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
	// scope is the queued statement that sets the tenant scope (SetLocal
	// adds to it until the first send).
	scope *pgx.QueuedQuery
}

// scopeSQL sets the tenant scope of a Pipelined transaction.
const scopeSQL = "SELECT set_config('" + Setting + "', $1, true)"

// newPipeline queues BEGIN and the tenant scope on conn.
func newPipeline(conn *pgx.Conn, tenantID string) *pipeline {
	p := &pipeline{conn: conn, scope: &pgx.QueuedQuery{SQL: scopeSQL, Arguments: []any{tenantID}}}
	p.queue(&pgx.QueuedQuery{SQL: "BEGIN"})
	p.queue(p.scope)
	return p
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
