package footprint

import (
	"os"
	"testing"
	"time"
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

func TestParseStatReadsCPUAfterACommandWithSpaces(t *testing.T) {
	t.Parallel()
	line := []byte("4242 (postgres: app (x)) S 17 4242 4242 0 -1 4194560 100 0 0 0 250 30 0 0 20 0 1 0 100 1000 50\n")
	pid, fields, err := parseStat(line)
	if err != nil {
		t.Fatal(err)
	}
	if pid != 4242 || fields[0] != "S" || fields[1] != "17" {
		t.Errorf("pid %d, state %q, ppid %q; want 4242, S, 17", pid, fields[0], fields[1])
	}
	cpu, err := cpuOf(fields)
	if err != nil {
		t.Fatal(err)
	}
	if want := 280 * clockTick; cpu != want {
		t.Errorf("cpu = %v, want %v (250 + 30 ticks)", cpu, want)
	}
}

// A busy loop shows in the process's CPU time. The loop runs until the
// kernel has counted a tick (or 10 s): on a loaded host 50 ms of wall time
// may hold no tick of this process at all.
func TestTreeCPUCountsThisProcess(t *testing.T) {
	t.Parallel()
	deadline := time.Now().Add(10 * time.Second)
	for {
		spin := time.Now().Add(20 * time.Millisecond)
		for time.Now().Before(spin) {
		}
		got, err := TreeCPU([]int{os.Getpid()}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("TreeCPU(self) = %v after 10 s of busy loops, want a positive time", got)
		}
	}
}

func TestPeakRSSAfterResetIsAtLeastTheCurrentRSS(t *testing.T) {
	pid := os.Getpid()
	if err := ResetPeakRSS(pid); err != nil {
		t.Skipf("this kernel does not reset the peak: %v", err)
	}
	rss, err := SelfRSS()
	if err != nil {
		t.Fatal(err)
	}
	peak, err := PeakRSS(pid)
	if err != nil {
		t.Fatal(err)
	}
	if peak < rss/2 || peak <= 0 {
		t.Errorf("PeakRSS = %d right after a reset, RSS %d: want about the RSS", peak, rss)
	}
}
