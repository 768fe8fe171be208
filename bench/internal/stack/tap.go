package stack

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"sync"
)

// tap passes the services' JSON log lines on and remembers each service's
// internal listener from the `"internal_addr"` of its start-up line (libs/svcrun
// logs "<name> started" the same way for every service and the gateway).
// Every service logger writes whole lines, concurrently.
type tap struct {
	out   io.Writer
	mu    sync.Mutex
	addrs map[string]string
}

func newTap(out io.Writer) *tap {
	return &tap{out: out, addrs: map[string]string{}}
}

// Write implements io.Writer.
func (t *tap) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if bytes.Contains(p, []byte(`"internal_addr"`)) {
		for line := range bytes.Lines(p) {
			t.learn(line)
		}
	}
	return t.out.Write(p)
}

func (t *tap) learn(line []byte) {
	var rec struct {
		Service      string `json:"service"`
		InternalAddr string `json:"internal_addr"`
	}
	if json.Unmarshal(line, &rec) != nil || rec.Service == "" || rec.InternalAddr == "" {
		return
	}
	t.addrs[rec.Service] = rec.InternalAddr
}

// internal returns a copy of the listeners learnt so far.
func (t *tap) internal() map[string]string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return maps.Clone(t.addrs)
}
