package kstore

import (
	"reflect"
	"testing"

	"github.com/kandra-go/kandra/internal/tokenscan"
)

// A scan position read back from any string is refused or is one whose
// String reads back the same: ParseScanPosition never panics on what a
// user saved, tampered or truncated.
func FuzzParseScanPosition(f *testing.F) {
	p := ScanPosition{query: 42}
	p.pieces = append(p.pieces, tokenPiece(-10, 5, false, []byte{1, 2, 3}), tokenPiece(5, 99, true, nil))
	f.Add(p.String())
	f.Add("")
	f.Add("AQ")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseScanPosition(s)
		if err != nil {
			return
		}
		q, err := ParseScanPosition(p.String())
		if err != nil || !reflect.DeepEqual(p, q) {
			t.Fatalf("%q read as %+v, whose String reads as %+v, %v", s, p, q, err)
		}
	})
}

// A merged listing's cursor state (kept in a URL, where anyone may change
// it) is refused or read back the same; decode never panics.
func FuzzMergeCursor(f *testing.F) {
	m := &merge[fUser]{parts: make([]mergePart[fUser], 3)}
	m.parts[0].done = true
	m.parts[1].pos, m.parts[1].state = 7, []byte("state")
	f.Add(m.encode())
	f.Add([]byte{})
	f.Add([]byte{3, 0, 200, 200, 200, 200, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		m := &merge[fUser]{parts: make([]mergePart[fUser], 3)}
		if !m.decode(b) {
			return
		}
		again := &merge[fUser]{parts: make([]mergePart[fUser], 3)}
		if !again.decode(m.encode()) {
			t.Fatalf("%x decoded, but its encoding %x does not", b, m.encode())
		}
		for i := range m.parts {
			a, c := m.parts[i], again.parts[i]
			if a.done != c.done || !a.done && (a.pos != c.pos || string(a.state) != string(c.state)) {
				t.Fatalf("part %d: %+v, read back %+v", i, a, c)
			}
		}
	})
}

func tokenPiece(start, end int64, done bool, state []byte) (p tokenscan.Piece) {
	p.Start, p.End, p.Done, p.State = start, end, done, state
	return p
}
