package wire

import (
	"bytes"
	"encoding/json"
)

// Marshal is encoding/json without HTML escaping, as the API's bodies are
// encoded (libs/httpx): URLs keep their "&" instead of "\u0026".
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
