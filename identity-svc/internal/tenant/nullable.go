package tenant

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

// Null returns a Nullable that was sent as null.
func Null[T any]() Nullable[T] { return Nullable[T]{Set: true, Null: true} }

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

// MarshalJSON implements json.Marshaler: null when unset or null.
func (n Nullable[T]) MarshalJSON() ([]byte, error) {
	if !n.Set || n.Null {
		return []byte("null"), nil
	}
	return json.Marshal(n.Value)
}

// Present reports whether the field carries a value (set and not null).
func (n Nullable[T]) Present() bool { return n.Set && !n.Null }
