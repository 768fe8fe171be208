package pgcluster

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// runAs is the OS identity the server runs under: the postgres user when this
// process is root (initdb and postgres refuse to run as root), else ourselves.
type runAs struct {
	uid, gid int
	cred     *syscall.Credential // nil when no switch is needed
}

func lookupRunAs() (runAs, error) {
	if os.Geteuid() != 0 {
		return runAs{uid: os.Getuid(), gid: os.Getgid()}, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return runAs{}, fmt.Errorf("running as root needs the postgres OS user (install the postgresql package): %w", err)
	}
	uid, err := strconv.Atoi(u.Uid)
	if err != nil {
		return runAs{}, fmt.Errorf("postgres uid %q: %w", u.Uid, err)
	}
	gid, err := strconv.Atoi(u.Gid)
	if err != nil {
		return runAs{}, fmt.Errorf("postgres gid %q: %w", u.Gid, err)
	}
	return runAs{uid: uid, gid: gid, cred: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}, nil
}

// own hands path to the server's user (a no-op when we are that user).
func (r runAs) own(path string) error {
	if r.cred == nil {
		return nil
	}
	if err := os.Chown(path, r.uid, r.gid); err != nil {
		return fmt.Errorf("chown %s to the postgres user: %w", path, err)
	}
	return nil
}

// checkReachable reports a clear error when the server's user cannot search
// (x permission) every directory above dir: Postgres then fails with a bare
// "permission denied" that names neither the directory nor the fix.
func (r runAs) checkReachable(dir string) error {
	if r.cred == nil {
		return nil
	}
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue // Start creates it, searchable by all
		}
		if err != nil {
			return fmt.Errorf("checking %s: %w", p, err)
		}
		if !r.canSearch(st) {
			return fmt.Errorf("the postgres OS user (uid %d) cannot reach the cluster directory %s: "+
				"%s has mode %v and is not searchable by other users; run `chmod o+x %s` "+
				"(every parent directory of %s needs o+x) or choose a directory outside it",
				r.uid, dir, p, st.Mode().Perm(), p, dir)
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

func (r runAs) canSearch(st os.FileInfo) bool {
	mode := st.Mode().Perm()
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return mode&0o001 != 0
	}
	switch {
	case int(sys.Uid) == r.uid:
		return mode&0o100 != 0
	case int(sys.Gid) == r.gid:
		return mode&0o010 != 0
	default:
		return mode&0o001 != 0
	}
}
