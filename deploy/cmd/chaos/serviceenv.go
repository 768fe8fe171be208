package main

// serviceEnv is what the chaos run changes in the processes' environment,
// on top of the devstack's: the hosted pages are rate limited per client
// IP (30 a minute), and every customer of the load shares this machine's.
func serviceEnv() map[string][]string {
	return map[string][]string{
		"gateway": {"RATE_LIMIT_IP_PER_MINUTE=1000000"},
	}
}
