package pgcluster

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestCheckReachableNamesTheClosedParent(t *testing.T) {
	t.Parallel()
	root, err := os.MkdirTemp("", "pgcluster-access-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	closed := filepath.Join(root, "home")
	open := filepath.Join(root, "srv")
	for dir, mode := range map[string]os.FileMode{root: 0o755, closed: 0o700, open: 0o711} {
		if err := os.MkdirAll(dir, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
	}
	// A user that owns none of the directories, as postgres when we are root.
	other := runAs{uid: 54321, gid: 54321, cred: &syscall.Credential{Uid: 54321, Gid: 54321}}

	tests := []struct {
		name    string
		dir     string
		wantErr string
	}{
		{name: "closed parent", dir: filepath.Join(closed, "checkout", ".paylane", "pg"), wantErr: "chmod o+x " + closed},
		{name: "searchable parents", dir: filepath.Join(open, "pg")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := other.checkReachable(tt.dir)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), tt.dir) {
				t.Fatalf("err = %v; want it to name %s and %q", err, tt.dir, tt.wantErr)
			}
		})
	}
}
