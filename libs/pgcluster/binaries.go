package pgcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// DefaultBinDir is where Debian's postgresql-15 package installs the server binaries.
const DefaultBinDir = "/usr/lib/postgresql/15/bin"

// ErrNoBinaries reports that no directory holding initdb, pg_ctl and postgres was found.
var ErrNoBinaries = errors.New("postgres server binaries not found (install the postgresql package or call pgcluster.EnsureBinaries)")

// FindBinDir returns the directory of the Postgres server binaries: want when it is
// set, else DefaultBinDir, else `pg_config --bindir`, else the newest
// /usr/lib/postgresql/*/bin. The directory must hold initdb and postgres.
func FindBinDir(ctx context.Context, want string) (string, error) {
	if want != "" {
		if !hasServer(want) {
			return "", fmt.Errorf("bin dir %s: %w", want, ErrNoBinaries)
		}
		return want, nil
	}
	if hasServer(DefaultBinDir) {
		return DefaultBinDir, nil
	}
	if out, err := exec.CommandContext(ctx, "pg_config", "--bindir").Output(); err == nil {
		if dir := strings.TrimSpace(string(out)); hasServer(dir) {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	for _, d := range dirs {
		if hasServer(d) {
			return d, nil
		}
	}
	return "", ErrNoBinaries
}

// versionOf extracts the major version from /usr/lib/postgresql/<v>/bin.
func versionOf(binDir string) int {
	var v int
	_, _ = fmt.Sscanf(filepath.Base(filepath.Dir(binDir)), "%d", &v)
	return v
}

func hasServer(dir string) bool {
	for _, name := range []string{"initdb", "postgres"} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			return false
		}
	}
	return true
}

// EnsureBinaries installs the Debian postgresql package (apt-get update, then
// apt-get install -y postgresql) when no server binaries are found. It needs root,
// as the local stack and CI machines run. Nothing happens when they are present.
func EnsureBinaries(ctx context.Context, log *slog.Logger) error {
	if _, err := FindBinDir(ctx, ""); err == nil {
		return nil
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log.Info("postgres binaries missing; installing the postgresql package with apt-get")
	env := append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	for _, args := range [][]string{{"update"}, {"install", "-y", "postgresql"}} {
		var out bytes.Buffer
		cmd := exec.CommandContext(ctx, "apt-get", args...)
		cmd.Env = env
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("apt-get %s: %w: %s", args[0], err, tail(out.String(), 2000))
		}
	}
	if _, err := FindBinDir(ctx, ""); err != nil {
		return fmt.Errorf("after installing postgresql: %w", err)
	}
	log.Info("postgres binaries installed")
	return nil
}

// tail returns at most the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
