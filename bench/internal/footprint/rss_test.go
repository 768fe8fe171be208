package footprint

import (
	"testing"
)

func TestParseVmRSS(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		status  string
		want    int64
		wantErr bool
	}{
		{"kB line", "Name:\tgateway\nVmPeak:\t  99999 kB\nVmRSS:\t   24576 kB\nThreads:\t9\n", 24576 << 10, false},
		{"no VmRSS line", "Name:\tkthreadd\nState:\tS (sleeping)\n", 0, true},
		{"unexpected unit", "VmRSS:\t 12 MB\n", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseVmRSS([]byte(tt.status))
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("parseVmRSS = %d, %v; want %d, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestSelfRSSIsPositive(t *testing.T) {
	t.Parallel()
	got, err := SelfRSS()
	if err != nil {
		t.Fatal(err)
	}
	if got <= 0 {
		t.Errorf("SelfRSS() = %d, want a positive size", got)
	}
}
