package footprint

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of utime and stime in /proc/<pid>/stat (USER_HZ,
// 100 on every Linux architecture Go supports).
const clockTick = 10 * time.Millisecond

// CPUTime returns the user plus system CPU time process pid has used.
func CPUTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, fmt.Errorf("reading process stat: %w", err)
	}
	_, fields, err := parseStat(b)
	if err != nil {
		return 0, err
	}
	return cpuOf(fields)
}

// parseStat splits /proc/<pid>/stat after the command (which may hold
// spaces and parentheses): fields[0] is the state, fields[1] the parent pid.
func parseStat(b []byte) (pid int, fields []string, err error) {
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 1 || end < open {
		return 0, nil, fmt.Errorf("unexpected stat line %q", b)
	}
	pid, err = strconv.Atoi(strings.TrimSpace(string(b[:open])))
	if err != nil {
		return 0, nil, fmt.Errorf("parsing pid: %w", err)
	}
	fields = strings.Fields(string(b[end+1:]))
	if len(fields) < 13 {
		return 0, nil, fmt.Errorf("stat line with %d fields", len(fields))
	}
	return pid, fields, nil
}

// cpuOf reads utime and stime (fields 14 and 15 of the line, 11 and 12
// after the command).
func cpuOf(fields []string) (time.Duration, error) {
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("parsing cpu time: %w", err)
		}
		ticks += n
	}
	return time.Duration(ticks) * clockTick, nil
}

// TreeCPU returns the CPU time used by the processes pids and by every
// living child of the processes in parents (one level: a postmaster's
// backends). Processes that exit meanwhile are skipped.
func TreeCPU(pids, parents []int) (time.Duration, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, fmt.Errorf("reading /proc: %w", err)
	}
	want := map[int]bool{}
	for _, p := range pids {
		want[p] = true
	}
	isParent := map[int]bool{}
	for _, p := range parents {
		isParent[p], want[p] = true, true
	}
	var total time.Duration
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // exited
		}
		_, fields, err := parseStat(b)
		if err != nil {
			continue
		}
		ppid, _ := strconv.Atoi(fields[1])
		if !want[pid] && !isParent[ppid] {
			continue
		}
		if cpu, err := cpuOf(fields); err == nil {
			total += cpu
		}
	}
	return total, nil
}
