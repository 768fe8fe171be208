package idemscope

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// redisKeyPrefix namespaces the bindings in a Redis shared with the rate
// limiter.
const redisKeyPrefix = "paylane:idem:"

type redisStore struct {
	rdb redis.Cmdable
}

// NewRedis returns a Store in Redis: one SET NX GET per call (atomic, one
// round trip), with the binding's TTL, so the first replica to bind a key
// wins for every replica.
func NewRedis(rdb redis.Cmdable) Store { return &redisStore{rdb: rdb} }

// Bind implements Store.
func (s *redisStore) Bind(ctx context.Context, scope, owner string) (string, error) {
	prev, err := s.rdb.SetArgs(ctx, redisKeyPrefix+scope, owner, redis.SetArgs{Mode: "NX", TTL: TTL, Get: true}).Result()
	switch {
	case errors.Is(err, redis.Nil): // not bound before: bound now
		return owner, nil
	case err != nil:
		return "", fmt.Errorf("binding idempotency key in redis: %w", err)
	}
	return prev, nil
}
