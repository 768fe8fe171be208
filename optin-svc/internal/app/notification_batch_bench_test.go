package app_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/ids"
	optin "github.com/paylane/paylane/optin-svc"
	"github.com/paylane/paylane/optin-svc/internal/testenv"
	transactions "github.com/paylane/paylane/transactions-svc/client"
)

// BenchmarkRequestNotifications records id-only notifications (one op is
// one notification: read from the transactions-svc fake, claimed, checked,
// inserted, queued and its event written) in batches of 1, 100 and 500 of
// one tenant. Batches of 1 cost what the consumer cost when it handled one
// event at a time (a read and a transaction per event). Besides the wall
// time it reports the CPU of this process (the use case, the fake and
// the HTTP client) and of the Postgres cluster's backends per op, which
// move less with the host's load. The service's dispatcher is kept idle.
func BenchmarkRequestNotifications(b *testing.B) {
	for _, size := range []int{1, 100, 500} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) {
			env := testenv.Start(b, testenv.Options{Configure: func(c *optin.Config) { c.SendPollInterval = time.Hour }})
			a := batchApp(env)
			tenant := env.NewTenant(b, testenv.TenantOptions{})
			ctx := context.Background()
			envs := make([]events.Envelope, b.N)
			for i := range envs {
				id := ids.New()
				env.Transactions.AddNotification(tenant, transactions.Notification{ID: id, Kind: events.KindPaymentLink,
					To: fmt.Sprintf("+1415555%04d", i%10000), Body: "Pay here: https://pay.example.test/l/r/" + id})
				envs[i] = testenv.NewEvent(b, events.TypeNotificationRequested, tenant, events.NotificationRequested{
					NotificationID: id, Kind: events.KindPaymentLink, TransactionID: ids.New(), ContactID: ids.New()})
			}
			postmaster := postmasterPID(b, env)
			pg0, self0 := childrenCPU(postmaster), selfCPU()
			b.ResetTimer()
			for start := 0; start < len(envs); start += size {
				if err := a.HandleBatch(ctx, envs[start:min(start+size, len(envs))]); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64((childrenCPU(postmaster)-pg0).Microseconds())/float64(b.N), "pg-µs/op")
			b.ReportMetric(float64((selfCPU()-self0).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

// postmasterPID is the parent of a backend of env's pool: the cluster's
// postmaster.
func postmasterPID(b *testing.B, env *testenv.Env) int {
	var backend int
	if err := env.Pool.QueryRow(context.Background(), "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		b.Fatal(err)
	}
	ppid, _, ok := procStat(backend)
	if !ok {
		b.Skip("no /proc")
	}
	return ppid
}

// childrenCPU is the user and system time of the live children of pid
// (the cluster's backends and workers).
func childrenCPU(pid int) time.Duration {
	var total time.Duration
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range dirs {
		child, err := strconv.Atoi(filepath.Base(dir))
		if err != nil {
			continue
		}
		if ppid, cpu, ok := procStat(child); ok && ppid == pid {
			total += cpu
		}
	}
	return total
}

// procStat reads the parent and the user and system time of process pid
// (Linux /proc).
func procStat(pid int) (int, time.Duration, bool) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+2:]))
	ppid, _ := strconv.Atoi(f[1])
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return ppid, time.Duration(ut+st) * (time.Second / 100), true // USER_HZ
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
