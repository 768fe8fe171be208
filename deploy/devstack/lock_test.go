package devstack

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestRootLock(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	held, err := lockRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		call func() error
	}{
		{name: "second lock", call: func() error {
			f, err := lockRoot(root)
			if err == nil {
				f.Close()
			}
			return err
		}},
		{name: "Run", call: func() error {
			return Run(context.Background(), Options{Root: root, Log: io.Discard})
		}},
		{name: "Reset", call: func() error { return Reset(context.Background(), root, io.Discard) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(); !errors.Is(err, errLocked) {
				t.Errorf("err = %v, want errLocked while a devstack holds the root", err)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(root, lockName)); err != nil {
		t.Errorf("Reset removed the root of a running devstack: %v", err)
	}
	held.Close()
	again, err := lockRoot(root)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	again.Close()
}
