package receiver

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paylane/paylane/bench/internal/load"
	"github.com/paylane/paylane/deploy/devstack"
)

func TestReceiverRecordsTheFirstArrivalOfEachEvent(t *testing.T) {
	t.Parallel()
	files, err := devstack.EnsureTLS(t.TempDir(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	rx, err := Start(files.Cert, files.Key)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rx.Close() })
	client, err := load.NewClient(files.CACert, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{`{"id":"evt_1","type":"contact.created"}`, `{"id":"evt_1"}`, `not json`} {
		resp, err := client.Post(rx.URL, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("POST %s = %d, want 200", body, resp.StatusCode)
		}
	}
	got := rx.WaitFor(context.Background(), []string{"evt_1", "evt_2"}, 0)
	if _, ok := got["evt_1"]; !ok || len(got) != 1 {
		t.Errorf("arrivals %v, want evt_1 only", got)
	}
}
