package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxSocketPath keeps "<dir>/.s.PGSQL.<port>" within a unix socket address (108 bytes).
const maxSocketPath = 90

// prepareDirs creates the data directory (or a temporary one) owned by the
// server's user, and picks the socket directory.
func (c *Cluster) prepareDirs(dir string) error {
	if dir == "" {
		root, err := c.tempDir("pgcluster-")
		if err != nil {
			return err
		}
		c.Dir = filepath.Join(root, "data")
	} else {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return fmt.Errorf("data dir %s: %w", dir, err)
		}
		c.Dir = abs
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return fmt.Errorf("creating %s: %w", filepath.Dir(abs), err)
		}
		if err := c.as.checkReachable(abs); err != nil {
			return err
		}
	}
	if err := os.Mkdir(c.Dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("creating data dir: %w", err)
	}
	if err := c.as.own(c.Dir); err != nil {
		return err
	}
	if err := os.Chmod(c.Dir, 0o700); err != nil {
		return fmt.Errorf("chmod data dir: %w", err)
	}
	c.SocketDir = c.Dir
	if len(c.Dir) > maxSocketPath {
		sock, err := c.tempDir("pgsock-")
		if err != nil {
			return err
		}
		c.SocketDir = sock
	}
	return nil
}

// tempDir makes a temporary directory the server's user owns and every user
// can search, and registers it for removal by Stop.
func (c *Cluster) tempDir(pattern string) (string, error) {
	d, err := os.MkdirTemp("", pattern)
	if err != nil {
		return "", fmt.Errorf("temp dir: %w", err)
	}
	c.temps = append(c.temps, d)
	if err := os.Chmod(d, 0o755); err != nil {
		return "", fmt.Errorf("chmod %s: %w", d, err)
	}
	return d, c.as.own(d)
}

// initdb initialises an empty data directory; for an existing cluster it only
// loads the superuser password.
func (c *Cluster) initdb(ctx context.Context, ephemeral bool) error {
	if _, err := os.Stat(filepath.Join(c.Dir, "PG_VERSION")); err == nil {
		return c.loadPassword()
	}
	entries, err := os.ReadDir(c.Dir)
	if err != nil {
		return fmt.Errorf("reading data dir: %w", err)
	}
	if len(entries) > 0 {
		return fmt.Errorf("%s is neither empty nor a Postgres data directory", c.Dir)
	}
	args := []string{"-D", c.Dir, "-U", Superuser, "--encoding=UTF8", "--locale=C.UTF-8", "--no-instructions"}
	if ephemeral {
		args = append(args, "--auth=trust", "--no-sync")
	} else {
		pwfile, err := c.newPassword()
		if err != nil {
			return err
		}
		defer os.Remove(pwfile)
		args = append(args, "--auth=scram-sha-256", "--pwfile="+pwfile)
	}
	cmd := c.command(ctx, "initdb", args...)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("initdb: %w: %s", err, c.out.String())
	}
	return nil
}

// newPassword generates the superuser password, stores it in PasswordFile and
// returns a temporary copy the server's user can read, for initdb --pwfile.
func (c *Cluster) newPassword() (string, error) {
	c.password = randomHex(24)
	if err := os.WriteFile(PasswordFile(c.Dir), []byte(c.password+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("writing superuser password: %w", err)
	}
	f, err := os.CreateTemp("", "pgcluster-pw-")
	if err != nil {
		return "", fmt.Errorf("temp password file: %w", err)
	}
	defer f.Close()
	if _, err := f.WriteString(c.password + "\n"); err != nil {
		return "", fmt.Errorf("temp password file: %w", err)
	}
	return f.Name(), c.as.own(f.Name())
}

// loadPassword reads the superuser password of an existing cluster. A cluster
// initialised with trust authentication (Ephemeral) has no password file.
func (c *Cluster) loadPassword() error {
	b, err := os.ReadFile(PasswordFile(c.Dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading superuser password: %w", err)
	}
	c.password = strings.TrimSpace(string(b))
	return nil
}
