// Command openapi writes the OpenAPI 3.1 document the gateway serves at
// /api/v1/openapi.json (openapi.yaml merged with services/*.yaml), indented,
// to stdout or to the file named by -o. The Go SDK (sdk/go, `make sdk`) is
// generated from it.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/paylane/paylane/gateway/openapi"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "openapi:", err)
		os.Exit(1)
	}
}

func run() error {
	out := flag.String("o", "", "write the document to this file instead of stdout")
	flag.Parse()
	doc, err := openapi.JSON()
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, doc, "", "  "); err != nil {
		return fmt.Errorf("indenting the document: %w", err)
	}
	buf.WriteByte('\n')
	if *out == "" {
		_, err = os.Stdout.Write(buf.Bytes())
		return err
	}
	return os.WriteFile(*out, buf.Bytes(), 0o644)
}
