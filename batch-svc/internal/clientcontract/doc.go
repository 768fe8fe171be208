// Package clientcontract holds the tests of batch-svc/client against the
// real service: the client module cannot import the service (that would
// make the two modules depend on each other), so the service checks that
// its client speaks its routes.
package clientcontract
