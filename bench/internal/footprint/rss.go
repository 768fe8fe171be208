// Package footprint measures resident memory (VmRSS from /proc) and CPU
// time of processes, and builds the service binaries the benchmark runs as
// processes of their own (under deploy/supervisor), so each one's memory
// can be read separately.
package footprint

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// RSS returns the resident set size of process pid in bytes.
func RSS(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, fmt.Errorf("reading process status: %w", err)
	}
	return parseVmRSS(b)
}

// PeakRSS returns the highest resident set size of process pid in bytes
// (VmHWM) since it started or since ResetPeakRSS.
func PeakRSS(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, fmt.Errorf("reading process status: %w", err)
	}
	return parseStatusKB(b, "VmHWM")
}

// ResetPeakRSS sets process pid's peak resident set size (VmHWM) to its
// current one, so that PeakRSS then reports the peak of what follows
// (proc(5): writing 5 to clear_refs).
func ResetPeakRSS(pid int) error {
	if err := os.WriteFile("/proc/"+strconv.Itoa(pid)+"/clear_refs", []byte("5"), 0); err != nil {
		return fmt.Errorf("resetting the peak RSS: %w", err)
	}
	return nil
}

// SelfRSS returns this process's resident set size in bytes.
func SelfRSS() (int64, error) { return RSS(os.Getpid()) }

// parseVmRSS reads the "VmRSS:  1234 kB" line of /proc/<pid>/status.
func parseVmRSS(status []byte) (int64, error) { return parseStatusKB(status, "VmRSS") }

// parseStatusKB reads the "<field>:  1234 kB" line of /proc/<pid>/status.
func parseStatusKB(status []byte, field string) (int64, error) {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), field+":")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) != 2 || fields[1] != "kB" {
			return 0, fmt.Errorf("unexpected %s line %q", field, sc.Text())
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("parsing %s: %w", field, err)
		}
		return kb << 10, nil
	}
	return 0, fmt.Errorf("no %s line (a kernel thread or an exited process)", field)
}
