package devstack

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

func TestReset(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		entries []string
		wantErr bool
	}{
		{name: "devstack data is wiped", entries: []string{"pg/PG_VERSION", "pg.log", "tls/ca.pem", "secrets.json", "devstack.json"}},
		{name: "foreign files stop the wipe", entries: []string{"secrets.json", "notes.txt"}, wantErr: true},
		{name: "missing root is fine"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := filepath.Join(t.TempDir(), "root")
			for _, e := range tt.entries {
				p := filepath.Join(root, e)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			err := Reset(context.Background(), root, io.Discard)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Reset: err=%v, wantErr %v", err, tt.wantErr)
			}
			_, statErr := os.Stat(root)
			if exists := statErr == nil; exists != (tt.wantErr) {
				t.Errorf("root exists=%v after Reset", exists)
			}
		})
	}
}

func TestStopStaleClusterRemovesPidFileOfDeadProcess(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		content string
	}{
		{name: "pid of no process", content: "2147483646\n/nowhere\n"},
		{name: "pid of a process that is not postgres", content: pidLine(os.Getpid())},
		{name: "garbage", content: "not a pid\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "postmaster.pid")
			if err := os.WriteFile(pidFile, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := stopStaleCluster(context.Background(), dir, io.Discard); err != nil {
				t.Fatalf("stopStaleCluster: %v", err)
			}
			if _, err := os.Stat(pidFile); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("stale postmaster.pid still there (stat err %v)", err)
			}
		})
	}
}

func pidLine(pid int) string {
	return strconv.Itoa(pid) + "\n"
}
