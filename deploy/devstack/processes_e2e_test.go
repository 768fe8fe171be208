package devstack

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestProcessModeEndToEnd runs the devstack with every service and the
// gateway as processes of their own: a contact is created through the
// gateway; contacts-svc killed with SIGKILL is restarted by the supervisor
// and serves again (the contact is still there, a new one is created);
// stopping the stack leaves no process behind.
func TestProcessModeEndToEnd(t *testing.T) {
	root := tempRoot(t)
	// The binaries go beside the root, which the test removes.
	st := startStackWith(t, root, func(o *Options) {
		o.Processes = true
		o.BinDir = filepath.Join(filepath.Dir(root), "bin")
	})
	var c *contactsE2E
	stopped := false
	defer func() {
		if !stopped {
			if c != nil {
				c.hc.CloseIdleConnections()
			}
			st.stop(t)
		}
	}()
	sup := st.info.Processes
	if sup == nil {
		t.Fatal("Info.Processes is nil in process mode")
	}
	pids := map[string]int{}
	for _, name := range []string{"identity-svc", "contacts-svc", "optin-svc", "transactions-svc", "webhook-svc", "batch-svc", "ai-gateway-svc", "gateway"} {
		pid := sup.PID(name)
		if pid == 0 || pid == os.Getpid() {
			t.Fatalf("PID(%s) = %d: want a process of its own", name, pid)
		}
		pids[name] = pid
	}
	c = newContactsE2E(t, st.info)
	national, e164 := c.phone()
	first := c.create(t, c.token, fmt.Sprintf(`{"first_name":"Grace","phone":%q}`, national))
	if first.Phone != e164 {
		t.Fatalf("created phone %s, want %s", first.Phone, e164)
	}

	if err := sup.Kill("contacts-svc", syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for sup.PID("contacts-svc") == pids["contacts-svc"] || sup.PID("contacts-svc") == 0 {
		if ctx.Err() != nil {
			t.Fatal("contacts-svc was not restarted")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := sup.WaitReady(ctx, "contacts-svc"); err != nil {
		t.Fatalf("restarted contacts-svc not ready: %v", err)
	}
	if n := sup.Restarts("contacts-svc"); n != 1 {
		t.Errorf("Restarts(contacts-svc) = %d, want 1", n)
	}
	got := c.contactOf(t, c.call(t, http.MethodGet, "/api/v1/contacts/"+first.ID, c.token, "", nil), http.StatusOK)
	if got.ID != first.ID {
		t.Errorf("read back %s, want %s", got.ID, first.ID)
	}
	national, e164 = c.phone()
	if second := c.create(t, c.token, fmt.Sprintf(`{"first_name":"Ada","phone":%q}`, national)); second.Phone != e164 {
		t.Errorf("created after the restart: phone %s, want %s", second.Phone, e164)
	}
	pids["contacts-svc (restarted)"] = sup.PID("contacts-svc")
	mixedTraffic(t, c)
	scrapeEveryProcess(t, st.info.InternalAddrs)

	c.hc.CloseIdleConnections()
	st.stop(t)
	stopped = true
	for name, pid := range pids {
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("%s (pid %d) still runs after the stack stopped", name, pid)
		}
	}
}
