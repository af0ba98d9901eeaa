package kstore

import (
	"encoding/base64"
	"encoding/binary"
	"errors"

	"github.com/kandra-go/kandra/kerrors"
)

// Cursor is an opaque position in a partition, where the next page of a
// List starts. The zero Cursor means the partition has no more rows. A
// Cursor remembers the query that made it (table, partition, bounds,
// order), and resumes only that query.
type Cursor struct {
	state []byte // the driver's paging state
	query uint64 // the fingerprint of the query (Repo.fingerprint)
}

// IsZero reports the end of the partition.
func (c Cursor) IsZero() bool { return len(c.state) == 0 }

// String encodes the cursor for a URL or a JSON field ("" for the zero
// Cursor); ParseCursor reads it back.
func (c Cursor) String() string {
	if c.IsZero() {
		return ""
	}
	b := binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(c.state)), c.query)
	return base64.RawURLEncoding.EncodeToString(append(b, c.state...))
}

// ParseCursor decodes a Cursor.String; a string no Cursor.String made is a
// *kerrors.ArgumentError.
func ParseCursor(s string) (Cursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil && len(b) > 0 && len(b) <= 8 {
		err = errors.New("too short")
	}
	if err != nil {
		return Cursor{}, &kerrors.ArgumentError{Op: "ParseCursor", Arg: "s", Message: "not a cursor: " + err.Error()}
	}
	if len(b) == 0 {
		return Cursor{}, nil
	}
	return Cursor{query: binary.BigEndian.Uint64(b), state: b[8:]}, nil
}

// Iter is one page of a List: Next/Value over the rows, then Err and
// Cursor.
type Iter[T any] struct {
	rows   []*T
	i      int
	err    error
	cursor Cursor
	times  [][]CellTime // WithTimes', a row's each
	scores []float32    // WithScores', a row's each
}

// Next advances to the next row and reports whether there is one.
func (it *Iter[T]) Next() bool {
	if it.err != nil || it.i >= len(it.rows) {
		return false
	}
	it.i++
	return true
}

// Value is the current row.
func (it *Iter[T]) Value() *T { return it.rows[it.i-1] }

// Err is the error that ended the page, or nil.
func (it *Iter[T]) Err() error { return it.err }

// Cursor is where the next page starts (the zero Cursor at the end of the
// partition); pass it back with After.
func (it *Iter[T]) Cursor() Cursor { return it.cursor }

// All returns the page's rows.
func (it *Iter[T]) All() ([]*T, error) { return it.rows, it.err }

const defaultPageSize = 100
