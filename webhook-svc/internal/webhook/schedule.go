package webhook

import "time"

// retryDelays are the waits after each failed attempt: the first attempt is
// made at once, then after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h
// (contract section 9): eight attempts in all.
var retryDelays = [...]time.Duration{
	5 * time.Second, 5 * time.Minute, 30 * time.Minute,
	2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour,
}

// MaxAttempts is the number of attempts a delivery gets.
const MaxAttempts = len(retryDelays) + 1

// MaxRetryAfter caps how far a receiver's Retry-After may push the next attempt.
const MaxRetryAfter = time.Hour

// jitterFraction is the ± spread applied to every wait.
const jitterFraction = 0.10

// NextDelay returns the wait before the attempt that follows attempt number
// attempts (1-based) and true, or false when the attempts are exhausted.
// jitter is a number in [0, 1) (a random draw) that spreads the wait by
// ±10 %. retryAfter, when positive, is the receiver's Retry-After: honoured
// up to MaxRetryAfter, and never shortening the schedule.
func NextDelay(attempts int, jitter float64, retryAfter time.Duration) (time.Duration, bool) {
	if attempts < 1 || attempts >= MaxAttempts {
		return 0, false
	}
	base := retryDelays[attempts-1]
	d := time.Duration(float64(base) * (1 + jitterFraction*(2*jitter-1)))
	if retryAfter > 0 {
		d = max(d, min(retryAfter, MaxRetryAfter))
	}
	return d, true
}
