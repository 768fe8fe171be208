// Package footprint measures resident memory (VmRSS from /proc) and CPU
// time of processes, and builds the service binaries the benchmark runs as
// processes of their own (under deploy/supervisor), so each one's memory
// can be read separately.
package footprint

import (
	"bufio"
	"bytes"
	"errors"
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

// SelfRSS returns this process's resident set size in bytes.
func SelfRSS() (int64, error) { return RSS(os.Getpid()) }

// parseVmRSS reads the "VmRSS:  1234 kB" line of /proc/<pid>/status.
func parseVmRSS(status []byte) (int64, error) {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) != 2 || fields[1] != "kB" {
			return 0, fmt.Errorf("unexpected VmRSS line %q", sc.Text())
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("parsing VmRSS: %w", err)
		}
		return kb << 10, nil
	}
	return 0, errors.New("no VmRSS line (a kernel thread or an exited process)")
}
