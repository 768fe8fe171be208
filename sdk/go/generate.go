package paylane

// The document the gateway serves, then the client and types from it (`make sdk`
// runs these; generate_test.go runs the same commands and compares).
//go:generate go run github.com/paylane/paylane/gateway/cmd/openapi -o openapi.json
//go:generate go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2 -config oapi-codegen.yaml -o paylane.gen.go openapi.json
