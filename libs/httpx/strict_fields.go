package httpx

import (
	"reflect"
	"strings"
)

// maxFields is the largest number of JSON fields a struct's list holds.
const maxFields = 32

// structFields are a struct type's JSON fields, embedded ones promoted.
type structFields struct {
	t        reflect.Type
	n        int
	overflow bool
	fields   [maxFields]jsonField
}

// jsonField is a field encoding/json decodes into, found at depth (the
// embedding level); a name found twice at its shallowest depth is dropped,
// as encoding/json drops it, unless exactly one of the two is tagged.
type jsonField struct {
	name    string
	typ     reflect.Type
	depth   int
	tagged  bool
	dropped bool
}

// fieldOf returns the type of st's field whose JSON name is exactly key.
func (s *keyScanner) fieldOf(st reflect.Type, key []byte) (reflect.Type, bool) {
	var sf *structFields
	for i := range s.nstructs {
		if s.structs[i].t == st {
			sf = &s.structs[i]
			break
		}
	}
	if sf == nil && s.nstructs < len(s.structs) {
		sf = &s.structs[s.nstructs]
		s.nstructs++
		sf.t = st
		sf.collect(st, 0)
	}
	if sf == nil || sf.overflow {
		return fieldType(st, key)
	}
	for i := range sf.n {
		if f := &sf.fields[i]; !f.dropped && f.name == string(key) {
			return f.typ, true
		}
	}
	return nil, false
}

func (sf *structFields) collect(t reflect.Type, depth int) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				if depth < 8 {
					sf.collect(ft, depth+1)
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		tagged := name != ""
		if !tagged {
			name = f.Name
		}
		sf.add(jsonField{name: name, typ: f.Type, depth: depth, tagged: tagged})
	}
}

func (sf *structFields) add(f jsonField) {
	for i := range sf.n {
		o := &sf.fields[i]
		if o.name != f.name {
			continue
		}
		switch {
		case f.depth < o.depth:
			*o = f
		case f.depth > o.depth:
		case f.tagged && !o.tagged:
			*o = f
		case f.tagged == o.tagged:
			o.dropped = true
		}
		return
	}
	if sf.n == maxFields {
		sf.overflow = true
		return
	}
	sf.fields[sf.n] = f
	sf.n++
}

// fieldType returns the type of t's field whose JSON name is exactly key,
// following encoding/json's rules for embedded structs: the shallowest
// match wins; at one depth a single tagged match beats untagged ones, and
// any other tie hides the name. It allocates nothing, so no cache of
// field lists is needed.
func fieldType(t reflect.Type, key []byte) (reflect.Type, bool) {
	for depth := 0; depth < 8; depth++ {
		var m fieldMatch
		if !m.find(t, key, depth) && m.n == 0 {
			return nil, false // no embedded struct this deep
		}
		switch {
		case m.n == 1:
			return m.typ, true
		case m.tagged == 1:
			return m.tagTyp, true
		case m.n > 1:
			return nil, false
		}
	}
	return nil, false
}

// fieldMatch counts the fields named key at one embedding depth.
type fieldMatch struct {
	n, tagged   int
	typ, tagTyp reflect.Type
}

// find looks for fields named key exactly depth embedding levels below t;
// it reports whether t has struct fields that deep to look into.
func (m *fieldMatch) find(t reflect.Type, key []byte, depth int) (deeper bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				if depth > 0 {
					if m.find(ft, key, depth-1) || depth > 1 {
						deeper = true
					}
				} else {
					deeper = true
				}
				continue
			}
		}
		if depth > 0 || !f.IsExported() {
			continue
		}
		tagged := name != ""
		if !tagged {
			name = f.Name
		}
		if name != string(key) {
			continue
		}
		m.n++
		m.typ = f.Type
		if tagged {
			m.tagged++
			m.tagTyp = f.Type
		}
	}
	return deeper || m.n > 0
}
