package events_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/paylane/paylane/libs/events"
	"github.com/paylane/paylane/libs/testkit"
)

// Environment of the consumer process (consumeUntilKilled) that
// TestKilledConsumersSkipNothing starts and kills.
const (
	envKillBrokers = "EVENTS_KILL_TEST_BROKERS"
	envKillLog     = "EVENTS_KILL_TEST_LOG"
)

// killGroup is the consumer group of the killed consumer processes.
const killGroup = "killed-consumers"

// killMembers is how many ConsumeBatch members each consumer process runs,
// as webhook-svc runs several per replica.
const killMembers = 3

// TestMain runs the test binary as the killed consumer process when
// TestKilledConsumersSkipNothing starts it with envKillBrokers set, and as
// the tests otherwise.
func TestMain(m *testing.M) {
	if brokers := os.Getenv(envKillBrokers); brokers != "" {
		if err := consumeUntilKilled(strings.Split(brokers, ","), os.Getenv(envKillLog)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// consumeUntilKilled is the consumer process: it consumes every topic with
// killMembers ConsumeBatch members of one group and appends the ids of each
// handled batch to logPath (one write per batch, before the handler
// returns), until it is killed.
func consumeUntilKilled(brokers []string, logPath string) error {
	f, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	var mu sync.Mutex
	errs := make(chan error, killMembers)
	for range killMembers {
		go func() {
			errs <- events.ConsumeBatch(context.Background(), brokers, killGroup, events.AllTopics(),
				events.BatchLimits{Size: 50}, log, func(_ context.Context, batch []events.Envelope) error {
					var b strings.Builder
					for _, env := range batch {
						b.WriteString(env.ID + "\n")
					}
					mu.Lock()
					defer mu.Unlock()
					_, err := f.WriteString(b.String())
					return err
				})
		}()
	}
	for range killMembers {
		if err := <-errs; err != nil {
			return err
		}
	}
	return nil
}

// A consumer process killed (SIGKILL: no leave, no last commit) while
// handling, again and again, its successor started at once as a supervisor
// would, loses nothing: once a last process runs in peace, every event
// published meanwhile has been handled at least once.
func TestKilledConsumersSkipNothing(t *testing.T) {
	brokers := testkit.Broker(t)
	logPath := filepath.Join(t.TempDir(), "handled")

	start := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), envKillBrokers+"="+strings.Join(brokers, ","), envKillLog+"="+logPath)
		out, err := os.OpenFile(logPath+".out", os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}

	// A steady load on every topic, keyed by several tenants.
	ctx, stopLoad := context.WithCancel(context.Background())
	var published []string
	stream := map[string]string{} // event id → its topic and key: its partition
	loadDone := make(chan struct{})
	go func() {
		defer close(loadDone)
		w := &kafka.Writer{Addr: kafka.TCP(brokers...), Balancer: &kafka.Murmur2Balancer{}, RequiredAcks: kafka.RequireAll,
			BatchTimeout: time.Millisecond}
		defer w.Close()
		for i := 0; ctx.Err() == nil; i++ {
			var msgs []kafka.Message
			var ids []string
			for j, topic := range events.AllTopics() {
				env, err := events.New("contact.created", fmt.Sprintf("T%d", (i+j)%7), "", map[string]int{"i": i})
				if err != nil {
					t.Error(err)
					return
				}
				raw, _ := json.Marshal(env)
				msgs = append(msgs, kafka.Message{Topic: topic, Key: []byte(env.TenantID), Value: raw})
				ids = append(ids, env.ID)
				stream[env.ID] = topic + "/" + env.TenantID
			}
			if err := w.WriteMessages(context.Background(), msgs...); err != nil {
				t.Error(err)
				return
			}
			published = append(published, ids...)
			time.Sleep(5 * time.Millisecond)
		}
	}()

	// Killed after 1 s, 3 s and so on, each restarted at once.
	for _, life := range []time.Duration{3 * time.Second, 3 * time.Second, 1 * time.Second, 3 * time.Second,
		500 * time.Millisecond, 3 * time.Second, 2 * time.Second} {
		cmd := start()
		time.Sleep(life)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
	}
	last := start()
	t.Cleanup(func() {
		_ = last.Process.Kill()
		_ = last.Wait()
	})
	time.Sleep(2 * time.Second)
	stopLoad()
	<-loadDone

	// The dead members leave the group after the session timeout (10 s),
	// then the last process gets every partition.
	var missing []string
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(time.Second) {
		handled := readHandled(t, logPath)
		missing = missing[:0]
		for _, id := range published {
			if !handled[id] {
				missing = append(missing, id)
			}
		}
		if len(missing) == 0 {
			return
		}
	}
	// Skipped: a later event of the same partition was handled.
	handled := readHandled(t, logPath)
	lastHandled := map[string]int{}
	for i, id := range published {
		if handled[id] {
			lastHandled[stream[id]] = i
		}
	}
	skipped := 0
	for i, id := range published {
		if !handled[id] && i < lastHandled[stream[id]] {
			skipped++
		}
	}
	out, _ := os.ReadFile(logPath + ".out")
	t.Logf("consumer processes' output (tail):\n%s", out[max(0, len(out)-4000):])
	t.Fatalf("%d of %d published events never handled (%d of them before a handled one of their partition), e.g. %v",
		len(missing), len(published), skipped, missing[:min(5, len(missing))])
}

func readHandled(t *testing.T, path string) map[string]bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		t.Fatal(err)
	}
	defer f.Close()
	handled := map[string]bool{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		handled[s.Text()] = true
	}
	return handled
}
