package devstack

import (
	"fmt"
	"os"
	"path/filepath"
)

// pgLogName is the file under Root that receives the Postgres server's own
// output (initdb, startup, checkpoints, shutdown), so it does not mix with
// the devstack's progress lines and banner in the terminal.
const pgLogName = "pg.log"

// pgLogPath is Root/pg.log.
func pgLogPath(root string) string { return filepath.Join(root, pgLogName) }

// pgLog appends what Postgres writes to a file. It opens the file for each
// write (O_APPEND) and closes it again: the server writes a few lines at
// start, at checkpoints and at shutdown, and the writer needs no Close, so it
// outlives the cluster's output goroutines without tying the file's lifetime
// to the stack's.
type pgLog struct{ path string }

// newPGLog returns the writer for Root/pg.log. The file is created now (mode
// 0600: the server's messages may name roles and databases), so a root whose
// file cannot be written fails at start instead of silently losing the log.
func newPGLog(root string) (pgLog, error) {
	l := pgLog{path: pgLogPath(root)}
	f, err := l.open()
	if err != nil {
		return pgLog{}, fmt.Errorf("postgres log: %w", err)
	}
	return l, f.Close()
}

func (l pgLog) open() (*os.File, error) {
	return os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
}

// Write appends p to the file. A failed write is reported as written: the
// server's output pipe must keep draining (a writer error would close it and
// the server would then fail on its next log line), and a lost log line is
// the lesser harm.
func (l pgLog) Write(p []byte) (int, error) {
	f, err := l.open()
	if err != nil {
		return len(p), nil
	}
	defer f.Close()
	_, _ = f.Write(p)
	return len(p), nil
}
