package ratelimit

import (
	"context"
	"fmt"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// redisKeyPrefix namespaces the limiter's keys in a shared Redis (after
// redis_rate's own "rate:").
const redisKeyPrefix = "paylane:"

type redisLimiter struct {
	limiter *redis_rate.Limiter
}

// NewRedis returns a GCRA limiter whose state lives in Redis
// (go-redis/redis_rate, one Lua script per call, Redis's own clock), so
// every gateway replica sharing the Redis shares the counts. When Redis
// fails, Allow returns the error and the caller decides whether to fail
// open.
func NewRedis(client *redis.Client) Limiter {
	return &redisLimiter{limiter: redis_rate.NewLimiter(client)}
}

// Allow implements Limiter.
func (r *redisLimiter) Allow(ctx context.Context, key string, perMinute int) (Result, error) {
	if err := checkLimit(perMinute); err != nil {
		return Result{}, err
	}
	res, err := r.limiter.Allow(ctx, redisKeyPrefix+key, redis_rate.PerMinute(perMinute))
	if err != nil {
		return Result{}, fmt.Errorf("checking rate limit in redis: %w", err)
	}
	out := Result{Allowed: res.Allowed > 0, Limit: perMinute, Remaining: max(res.Remaining, 0)}
	if !out.Allowed {
		out.RetryAfter = max(res.RetryAfter, 0)
	}
	return out, nil
}
