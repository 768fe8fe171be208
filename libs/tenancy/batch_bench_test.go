package tenancy_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paylane/paylane/libs/tenancy"
)

// BenchmarkBatchRead is a single-row read through Batch, the shape of the
// services' hot single reads (GET /contacts/{id}). Besides the wall time it
// reports the CPU of this process and of the Postgres backend serving the
// pool's one connection per read, which move less with the host's load.
func BenchmarkBatchRead(b *testing.B) {
	ctx := context.Background()
	pool := onePool(b)
	if err := insert(ctx, pool, "tenant-a", "a1"); err != nil {
		b.Fatal(err)
	}
	var backend int
	if err := pool.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		b.Fatal(err)
	}
	pg0, self0 := procCPU(b, backend), selfCPU()
	b.ResetTimer()
	for b.Loop() {
		var name string
		q := &pgx.Batch{}
		q.Queue("SELECT name FROM items WHERE name = $1", "a1").QueryRow(func(row pgx.Row) error { return row.Scan(&name) })
		if err := tenancy.Batch(ctx, pool, "tenant-a", q); err != nil || name != "a1" {
			b.Fatal(name, err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64((procCPU(b, backend)-pg0).Microseconds())/float64(b.N), "pg-µs/op")
	b.ReportMetric(float64((selfCPU()-self0).Microseconds())/float64(b.N), "cpu-µs/op")
}

// procCPU is the user and system time of process pid (Linux /proc).
func procCPU(b *testing.B, pid int) time.Duration {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		b.Skip("no /proc: ", err)
	}
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * (time.Second / 100) // USER_HZ
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
