package devstack

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// lockName is the file a running devstack holds an exclusive flock on. The
// kernel drops the lock when the process dies, however it dies, so a held
// lock always means a live devstack and a free one means anything left in
// Root/pg is stale.
const lockName = "devstack.lock"

// errLocked reports a root in use by a running devstack.
var errLocked = errors.New("another devstack is running on this root")

// lockRoot takes the root's lock, or returns errLocked (naming the holder's
// pid) when a running devstack has it. Closing the file releases the lock.
func lockRoot(root string) (*os.File, error) {
	path := filepath.Join(root, lockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w (%s, pid %s): stop it first", errLocked, root, strings.TrimSpace(string(holder)))
		}
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}
