package kstore

import (
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
)

// Stamps: generated ids, CreatedAt, UpdatedAt and versions, written into
// the entity before its write.

func (r *Repo[T]) now() time.Time { return r.rt.cfg.now() }

// truncate gives t the precision the column stores, in UTC, as a read
// returns it (TIMESTAMP: milliseconds; DATE: days).
func truncate(c *kandra.ColumnSchema, t time.Time) time.Time {
	t = t.UTC()
	switch c.Type().Name() {
	case "DATE":
		return t.Truncate(24 * time.Hour)
	default:
		return t.Truncate(time.Millisecond)
	}
}

func (r *Repo[T]) timeField(c *kandra.ColumnSchema, e *T) *time.Time {
	p, _ := c.Pointer(e)
	return p.(*time.Time)
}

// stampCopy is a pooled entity for a unit's step to keep its entity
// in before stampInsert changes it, or nil when the table stamps nothing
// (the step then has nothing to put back). The step gives it back
// (Step.release).
func (r *Repo[T]) stampCopy() *T {
	if !r.stampsInsert {
		return nil
	}
	return r.spare()
}

// spare is a zeroed entity from r.copies, or a new one: for an entity
// the store holds only during a call (stampCopy, Find's next key).
func (r *Repo[T]) spare() *T {
	if p, ok := r.copies.Get().(*T); ok {
		return p
	}
	return new(T)
}

// unspare zeroes p, which nothing else holds, and gives it back to
// r.copies: the pool keeps no entity's memory alive.
func (r *Repo[T]) unspare(p *T) {
	var zero T
	*p = zero
	r.copies.Put(p)
}

// stampInsert fills generated ids, CreatedAt (when zero), UpdatedAt and the
// initial version (when zero).
func (r *Repo[T]) stampInsert(e *T) {
	for _, c := range r.gen {
		p, _ := c.Pointer(e)
		id := p.(*uuid.UUID)
		if *id == (uuid.UUID{}) {
			s, _ := c.GeneratedUUID()
			*id = s.New()
		}
	}
	created, updated, version := r.ts.CreatedAtColumn(), r.ts.UpdatedAtColumn(), r.ts.VersionColumn()
	if created == nil && updated == nil && version == nil {
		return // nothing to stamp: no clock reading (tens of ns a call)
	}
	var now time.Time
	clock := func() time.Time {
		if now.IsZero() {
			now = r.now()
		}
		return now
	}
	if c := created; c != nil {
		if p := r.timeField(c, e); p.IsZero() {
			*p = truncate(c, clock())
		}
	}
	if c := updated; c != nil {
		*r.timeField(c, e) = truncate(c, clock())
	}
	if c := version; c != nil {
		p, _ := c.Pointer(e)
		switch v := p.(type) {
		case *int64:
			if *v == 0 {
				*v = 1
			}
		case *time.Time:
			if v.IsZero() {
				*v = truncate(c, clock())
			}
		}
	}
}

// keepStamps saves e's UpdatedAt and version, for stamps.restore (a
// value, not a closure: Update would allocate one on every call).
func (r *Repo[T]) keepStamps(e *T) stamps {
	var s stamps
	if col := r.ts.UpdatedAtColumn(); col != nil {
		s.at = r.timeField(col, e)
		s.atWas = *s.at
	}
	if col := r.ts.VersionColumn(); col != nil {
		switch p, _ := col.Pointer(e); v := p.(type) {
		case *int64:
			s.verInt, s.intWas = v, *v
		case *time.Time:
			s.verTime, s.timeWas = v, *v
		}
	}
	return s
}

// stamps are an entity's UpdatedAt and version as keepStamps found them.
type stamps struct {
	at, verTime    *time.Time
	atWas, timeWas time.Time
	verInt         *int64
	intWas         int64
}

// restore puts the stamps back.
func (s *stamps) restore() {
	if s.at != nil {
		*s.at = s.atWas
	}
	if s.verInt != nil {
		*s.verInt = s.intWas
	}
	if s.verTime != nil {
		*s.verTime = s.timeWas
	}
}

// nextVersion sets new's version to the one after old's.
func (r *Repo[T]) nextVersion(old, nw *T) {
	c := r.ts.VersionColumn()
	po, _ := c.Pointer(old)
	pn, _ := c.Pointer(nw)
	switch v := po.(type) {
	case *int64:
		*pn.(*int64) = *v + 1
	case *time.Time:
		next := truncate(c, r.now())
		if !next.After(*v) {
			next = v.Add(time.Millisecond)
		}
		*pn.(*time.Time) = next
	}
}
