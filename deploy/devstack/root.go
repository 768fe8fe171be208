package devstack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DefaultRoot returns <repo>/.paylane, the repository being the nearest
// directory above the working directory that holds go.work (the working
// directory itself when there is none).
func DefaultRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return filepath.Join(dir, ".paylane"), nil
		}
		if filepath.Dir(dir) == dir {
			return filepath.Join(wd, ".paylane"), nil
		}
	}
}

// isRootEntry reports whether name is something the devstack keeps under
// Root; Reset refuses to wipe a directory that holds anything else, so a
// mistyped -root cannot delete unrelated files.
func isRootEntry(name string) bool {
	switch name {
	case "pg", "pg.log", "pg.superuser-password", "tls", "secrets.json", "devstack.json", "bin", lockName:
		return true
	}
	return strings.HasPrefix(name, ".") // temporary files of writeFileAtomic
}

// Reset wipes root: the Postgres cluster, certificates, secrets and
// devstack.json. It refuses while a devstack runs on root; a postgres left
// running on root/pg by a crashed devstack is stopped first so it does not
// keep writing into deleted files.
func Reset(ctx context.Context, root string, log io.Writer) error {
	root, err := filepath.Abs(root)
	if err != nil {
		return fmt.Errorf("resolving root: %w", err)
	}
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(log, "devstack: %s does not exist, nothing to reset\n", root)
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading root: %w", err)
	}
	for _, e := range entries {
		if !isRootEntry(e.Name()) {
			return fmt.Errorf("refusing to wipe %s: %s is not devstack data", root, e.Name())
		}
	}
	lock, err := lockRoot(root)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := stopStaleCluster(ctx, filepath.Join(root, "pg"), log); err != nil {
		return err
	}
	if err := os.RemoveAll(root); err != nil {
		return fmt.Errorf("wiping %s: %w", root, err)
	}
	fmt.Fprintf(log, "devstack: wiped %s\n", root)
	return nil
}
