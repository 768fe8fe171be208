package main

import "time"

// retryTimeScale compresses webhook-svc's retry schedule (5 s, 5 min,
// 30 min, 2 h, 5 h, 10 h, 10 h) and its breaker's 30 s: 500 times faster.
const retryTimeScale = 0.002

// retrySchedule is the contract's waits between attempts.
var retrySchedule = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute,
	2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}

// serviceEnv is what the chaos run changes in the processes' environment,
// on top of the devstack's: the hosted pages are rate limited per client
// IP (300 a minute) and per link, and every customer of the load shares
// this machine's address; webhook retries run on compressed time.
func serviceEnv() map[string][]string {
	return map[string][]string{
		"gateway":     {"RATE_LIMIT_IP_PER_MINUTE=1000000", "RATE_LIMIT_PAGE_IP_PER_MINUTE=1000000", "RATE_LIMIT_PAGE_LINK_PER_MINUTE=1000000"},
		"webhook-svc": {"WEBHOOK_RETRY_TIME_SCALE=0.002"},
	}
}
