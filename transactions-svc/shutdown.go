package transactions

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// wait blocks until ctx is done or a listener or worker fails, then stops
// everything in order: the HTTP listener drains, the internal listener and
// the workers end with ctx. It returns the failure that ended the run, if any.
func wait(ctx context.Context, cancel context.CancelFunc, shutdownHTTP func(time.Duration) error,
	httpDone, internalDone <-chan error, workerErr <-chan error, workers *sync.WaitGroup, log *slog.Logger) error {
	var runErr error
	internalStopped := false
	select {
	case <-ctx.Done():
	case err := <-httpDone:
		runErr = fmt.Errorf("http listener stopped: %w", err)
	case err := <-internalDone:
		internalStopped = true
		runErr = fmt.Errorf("internal listener stopped: %w", err)
	case runErr = <-workerErr:
	}
	cancel()
	if err := shutdownHTTP(shutdownTimeout); err != nil {
		log.Warn("http shutdown", "error", err)
	}
	if !internalStopped {
		if err := <-internalDone; err != nil {
			log.Warn("internal shutdown", "error", err)
		}
	}
	workers.Wait()
	log.Info("transactions-svc stopped")
	return runErr
}
