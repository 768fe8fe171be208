package sealer_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/paylane/paylane/libs/sealer"
)

func TestSealOpen(t *testing.T) {
	t.Parallel()
	s, err := sealer.New(bytes.Repeat([]byte{7}, sealer.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	other, _ := sealer.New(bytes.Repeat([]byte{8}, sealer.KeySize))
	secret := []byte("whsec_c2VjcmV0")
	sealed, err := s.Seal(secret, []byte("T1/E1"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, secret) {
		t.Fatal("the sealed value contains the plaintext")
	}
	again, _ := s.Seal(secret, []byte("T1/E1"))
	if bytes.Equal(sealed, again) {
		t.Error("sealing twice gave the same bytes (nonce reused)")
	}
	if got, err := s.Open(sealed, []byte("T1/E1")); err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("Open = %q, %v", got, err)
	}
	tests := map[string]func() ([]byte, error){
		"other row":   func() ([]byte, error) { return s.Open(sealed, []byte("T1/E2")) },
		"other key":   func() ([]byte, error) { return other.Open(sealed, []byte("T1/E1")) },
		"truncated":   func() ([]byte, error) { return s.Open(sealed[:10], []byte("T1/E1")) },
		"bad version": func() ([]byte, error) { return s.Open(append([]byte{9}, sealed[1:]...), []byte("T1/E1")) },
	}
	for name, open := range tests {
		if _, err := open(); !errors.Is(err, sealer.ErrOpen) {
			t.Errorf("%s: Open = %v, want ErrOpen", name, err)
		}
	}
	if _, err := sealer.New([]byte("short")); err == nil {
		t.Error("New accepted a short key")
	}
}
