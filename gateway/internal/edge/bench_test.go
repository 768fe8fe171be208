package edge_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/paylane/paylane/gateway/internal/edge"
)

// BenchmarkForward measures an authenticated, forwarded GET (cached token,
// memory limiter) from parallel kept-alive clients:
// go test -run XXX -bench Forward ./gateway/internal/edge
func BenchmarkForward(b *testing.B) {
	e := newEnv(b, func(cfg *edge.Config, _ *env) { cfg.Limits.Token = 1 << 30 })
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.SetParallelism(32) // 64 concurrent clients on 2 cores
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest(http.MethodGet, e.url+"/api/v1/contacts", nil)
			req.Header.Set("Authorization", "Bearer "+e.token)
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
}
