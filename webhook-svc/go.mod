module github.com/paylane/paylane/webhook-svc

go 1.26.8

require (
	github.com/paylane/paylane/libs v0.0.0
	github.com/paylane/paylane/contacts-svc v0.0.0
)

replace (
	github.com/paylane/paylane/libs => ../libs
	github.com/paylane/paylane/contacts-svc => ../contacts-svc
)
