module github.com/paylane/paylane/transactions-svc

go 1.26.8

require github.com/google/go-cmp v0.7.0

replace (
	github.com/paylane/paylane/contacts-svc => ../contacts-svc
	github.com/paylane/paylane/libs => ../libs
)
