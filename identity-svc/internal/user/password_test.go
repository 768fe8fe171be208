package user

import "testing"

func TestPasswordHash(t *testing.T) {
	t.Parallel()
	h, err := HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	h2, _ := HashPassword("correct horse battery")
	if h == h2 {
		t.Error("two hashes of one password are equal (no salt)")
	}
	tests := []struct {
		name, hash, password string
		want                 bool
	}{
		{"right", h, "correct horse battery", true},
		{"wrong", h, "correct horse batterY", false},
		{"empty hash", "", "correct horse battery", false},
		{"dummy", DummyHash, "correct horse battery", false},
		{"other scheme", "$2a$10$abcdefghijklmnopqrstuv", "x", false},
		{"absurd cost", "$argon2id$v=19$m=99999999,t=2,p=1$c2FsdA$a2V5", "x", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := CheckPassword(tc.hash, tc.password); got != tc.want {
				t.Errorf("CheckPassword = %v, want %v", got, tc.want)
			}
		})
	}
}
