package discovery

// Discovery is what a service needs from its environment: a Registrar for
// itself.
type Discovery struct {
	Registrar Registrar
}

// FromEnvironment picks the registrar from the environment read through
// lookup (os.LookupEnv in production): a NoopRegistrar when
// CONSUL_HTTP_ADDR is unset, else Consul (token from CONSUL_HTTP_TOKEN).
// opts are passed to NewConsul after the token option.
func FromEnvironment(lookup func(string) (string, bool), opts ...Option) (*Discovery, error) {
	addr, _ := lookup("CONSUL_HTTP_ADDR")
	if addr == "" {
		return &Discovery{Registrar: NoopRegistrar{}}, nil
	}
	if token, _ := lookup("CONSUL_HTTP_TOKEN"); token != "" {
		opts = append([]Option{WithToken(token)}, opts...)
	}
	c, err := NewConsul(addr, opts...)
	if err != nil {
		return nil, err
	}
	return &Discovery{Registrar: c}, nil
}
