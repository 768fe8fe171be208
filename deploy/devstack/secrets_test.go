package devstack

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLoadOrCreateSecrets(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "secrets.json")
	first, err := LoadOrCreateSecrets(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, n := range map[string]int{
		"signing key": len(first.SigningKey), "link key": len(first.LinkKey),
		"webhook encryption key": len(first.WebhookEncryptionKey),
	} {
		if n != 32 {
			t.Errorf("%s: %d bytes, want 32", name, n)
		}
	}
	if first.AdminToken == "" || first.SMSAuthToken == "" || first.ServiceSecret == "" {
		t.Errorf("tokens not generated: %+v", first)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %o, want 600", st.Mode().Perm())
	}
	second, err := LoadOrCreateSecrets(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("second load differs (-first +second):\n%s", diff)
	}
}

func TestLoadOrCreateSecretsFillsMissingAndTightensMode(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "secrets.json")
	if err := os.WriteFile(path, []byte(`{"admin_token":"kept"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadOrCreateSecrets(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.AdminToken != "kept" {
		t.Errorf("admin token %q, want the stored one kept", s.AdminToken)
	}
	var onDisk Secrets
	if err := json.Unmarshal(readBytes(t, path), &onDisk); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s, onDisk); diff != "" {
		t.Errorf("file not updated (-loaded +file):\n%s", diff)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %o, want 600", st.Mode().Perm())
	}
}

func TestLoadOrCreateSecretsRejectsCorruptFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "secrets.json")
	if err := os.WriteFile(path, []byte(`not json`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreateSecrets(path); err == nil {
		t.Fatal("want an error for a corrupt secrets file, not silently new secrets")
	}
}
