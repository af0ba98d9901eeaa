package bench

import (
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
)

// Event is the 12-field entity every contender works on: a composite
// partition key (TenantID, Day), a clustering key (OccurredAt), two lookup
// tables (by EventID and by Email), a secondary index (Kind), and fields
// of type uuid.UUID, string, time.Time, int32, float64, bool, []string and
// []byte.
type Event struct {
	TenantID   uuid.UUID
	Day        string
	OccurredAt time.Time
	EventID    uuid.UUID
	Email      string
	Kind       string
	Title      string
	Priority   int32
	Score      float64
	Done       bool
	Tags       []string
	Payload    []byte
}

// Describe is Event's kandra schema.
func (e *Event) Describe(s *kandra.Schema[Event]) {
	s.Table("events")
	kandra.Bind(s, &e.TenantID, kandra.PartitionKey(0))
	kandra.Bind(s, &e.Day, kandra.PartitionKey(1))
	kandra.Bind(s, &e.OccurredAt, kandra.ClusteringKey(0, kandra.ClusteringDesc))
	kandra.Bind(s, &e.EventID, kandra.Lookup("by_id", kandra.LookupBatch))
	kandra.Bind(s, &e.Email, kandra.Lookup("by_email", kandra.LookupEventual))
	kandra.Bind(s, &e.Kind, kandra.SecondaryIndex())
}

// GormEvent is Event for GORM's schema parser, which cannot parse a
// []string field: Tags carries gorm:"serializer:json", and the key columns
// carry gorm:"primaryKey" so that GORM parses the same primary key. The
// field set and order are Event's.
type GormEvent struct {
	TenantID   uuid.UUID `gorm:"primaryKey"`
	Day        string    `gorm:"primaryKey"`
	OccurredAt time.Time `gorm:"primaryKey"`
	EventID    uuid.UUID
	Email      string
	Kind       string
	Title      string
	Priority   int32
	Score      float64
	Done       bool
	Tags       []string `gorm:"serializer:json"`
	Payload    []byte
}

// TableName gives GORM the same table name as kandra.
func (GormEvent) TableName() string { return "events" }

// NewEvent returns an Event with every field set.
func NewEvent() *Event {
	return &Event{
		TenantID:   uuid.MustParse("0190f0a8-1d2c-7a3b-8c4d-5e6f7a8b9c0d"),
		Day:        "2025-06-01",
		OccurredAt: time.Date(2025, 6, 1, 12, 30, 0, 0, time.UTC),
		EventID:    uuid.MustParse("0190f0a8-1d2c-7a3b-8c4d-5e6f7a8b9c0e"),
		Email:      "ada@example.com",
		Kind:       "login",
		Title:      "signed in from a new device",
		Priority:   3,
		Score:      0.75,
		Done:       true,
		Tags:       []string{"auth", "device"},
		Payload:    []byte(`{"ip":"192.0.2.1"}`),
	}
}

// CamelToSnakeASCII is gocqlx's field-name rule (its DefaultMapper is
// reflectx.NewMapperFunc("db", CamelToSnakeASCII)): an underscore before
// an upper-case letter that follows a lower-case one, or that starts a
// lower-case run after another capital (HTTPServer -> http_server), then
// everything lower-cased. Like gocqlx's it is for ASCII names only and
// panics on others.
func CamelToSnakeASCII(s string) string {
	out := make([]byte, 0, len(s)+3)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isBindByte(c) {
			panic("not allowed name " + s)
		}
		if c >= 'A' && c <= 'Z' {
			if i > 0 && s[i-1] != '_' && (isLowerASCII(s[i-1]) || i+1 < len(s) && isLowerASCII(s[i+1])) {
				out = append(out, '_')
			}
			c += 'a' - 'A'
		}
		out = append(out, c)
	}
	return string(out)
}

func isLowerASCII(c byte) bool { return c >= 'a' && c <= 'z' }

func isBindByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}
