package contact

import (
	"bytes"
	"encoding/json"
)

// Nullable is a field of a partial update that tells apart "absent" (Set
// false), "null" (Set true, Null true) and a value. It decodes from JSON, so
// request bodies can use it directly.
type Nullable[T any] struct {
	Set   bool
	Null  bool
	Value T
}

// Of returns a Nullable holding v.
func Of[T any](v T) Nullable[T] { return Nullable[T]{Set: true, Value: v} }

// UnmarshalJSON implements json.Unmarshaler. It runs only when the key is
// present, which is what marks the field as set.
func (n *Nullable[T]) UnmarshalJSON(b []byte) error {
	n.Set = true
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		n.Null = true
		return nil
	}
	n.Null = false
	return json.Unmarshal(b, &n.Value)
}

// Ptr returns the value as a pointer: nil when absent or null.
func (n Nullable[T]) Ptr() *T {
	if !n.Set || n.Null {
		return nil
	}
	v := n.Value
	return &v
}
