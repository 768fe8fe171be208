module github.com/paylane/paylane/deploy

go 1.26.8

require github.com/paylane/paylane/libs v0.0.0

replace github.com/paylane/paylane/libs => ../libs

require (
	github.com/paylane/paylane/identity-svc v0.0.0
	github.com/paylane/paylane/gateway v0.0.0
)

replace (
	github.com/paylane/paylane/identity-svc => ../identity-svc
	github.com/paylane/paylane/gateway => ../gateway
)
