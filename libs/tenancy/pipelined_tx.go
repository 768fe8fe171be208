package tenancy

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

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
		if t.p.flushes == t.flushesAt && t.queuedAt < len(t.p.pending) &&
			t.p.pending[t.queuedAt].SQL == "SAVEPOINT "+t.savepoint {
			// Nothing of the savepoint was sent: its statements join the
			// enclosing transaction's queue as they are, and SAVEPOINT with
			// RELEASE would only cost the server a subtransaction. (A
			// statement of it that fails still fails the transaction, as a
			// failure between SAVEPOINT and RELEASE would in one batch.)
			t.p.pending = slices.Delete(t.p.pending, t.queuedAt, t.queuedAt+1)
			return nil
		}
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
