package kstore_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/adapter"
	"github.com/kandra-go/kandra/kstore"
)

// Todo is the partial-write examples' entity: an owner's todo with a list
// of tags, a set of labels, a map of custom fields and an optional note,
// stamped with UpdatedAt.
type Todo struct {
	OwnerID   uuid.UUID
	TodoID    uuid.UUID
	Title     string
	Done      bool
	Tags      []string
	Labels    map[string]struct{}
	Fields    map[string]string
	Note      *string
	UpdatedAt time.Time
}

func (t *Todo) Describe(s *kandra.Schema[Todo]) {
	s.Table("todos")
	kandra.Bind(s, &t.OwnerID, kandra.PartitionKey(0))
	kandra.GeneratedUUID(s, &t.TodoID, kandra.UUIDTimeOrdered, kandra.ClusteringKey(0, kandra.ClusteringDesc))
	kandra.UpdatedAt(s, &t.UpdatedAt)
}

// Reading is one value of a sensor, by day and time: a partition per
// sensor, a clustering prefix per day.
type Reading struct {
	Sensor string
	Day    string
	At     time.Time
	Value  float64
}

func (r *Reading) Describe(s *kandra.Schema[Reading]) {
	s.Table("readings")
	kandra.Bind(s, &r.Sensor, kandra.PartitionKey(0))
	kandra.Bind(s, &r.Day, kandra.ClusteringKey(0, kandra.ClusteringAsc))
	kandra.Bind(s, &r.At, kandra.ClusteringKey(1, kandra.ClusteringAsc))
}

// Profile is a sparse row, most of whose columns are usually null: its
// table leaves null columns unset on every write (kandra.OmitNulls).
type Profile struct {
	ID      string
	Name    string
	Phone   *string
	Company *string
	Born    *time.Time
}

func (p *Profile) Describe(s *kandra.Schema[Profile]) {
	s.Table("profiles", kandra.OmitNulls())
	kandra.Bind(s, &p.ID, kandra.PartitionKey(0))
}

var (
	Todos    = kandra.MustRegister[Todo]()
	Readings = kandra.MustRegister[Reading]()
	Profiles = kandra.MustRegister[Profile]()
	// Planner is the keyspace of the partial-write examples. Its targets
	// take lightweight transactions, which a guarded Patch is.
	Planner = kandra.MustNewKeyspace(kandra.KeyspaceSpec{
		Name:        "app",
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"dc1": 3}),
		Targets:     kandra.Cassandra5,
	}, Todos, Readings, Profiles)
)

// notApplied is printer that answers every conditional statement "not
// applied", returning the row's current values of the columns of its
// conditions from row (by column name), as Cassandra does.
type notApplied struct {
	printer
	row map[string]any
}

func (d notApplied) Exec(_ context.Context, q *adapter.Query) (bool, error) {
	fmt.Println(q.Statement.CQL())
	if !q.Statement.IsConditional() {
		return true, nil
	}
	for i, c := range q.Statement.ResultColumns() {
		if v, ok := d.row[c.Name()]; ok {
			reflect.ValueOf(q.Current[i]).Elem().Set(reflect.ValueOf(v))
			q.Returned++
		}
	}
	return false, nil
}

// unsetPrinter is printer that also names the columns a write sends as
// "unset".
type unsetPrinter struct{ printer }

func (unsetPrinter) Exec(_ context.Context, q *adapter.Query) (bool, error) {
	fmt.Println(q.Statement.CQL())
	var unset []string
	for i, c := range q.Statement.Columns() {
		if q.Values[q.Statement.ColumnsOffset()+i] == adapter.Unset {
			unset = append(unset, c.Name())
		}
	}
	fmt.Printf("  unset: [%s]\n", strings.Join(unset, " "))
	return true, nil
}

// Patch writes some columns of a row by its key, without reading it.
// By default it writes only to a row that exists (IF EXISTS), so that a
// missing todo is not created by the write. With a condition of its own,
// a failed write returns the row's current values of the condition's
// columns.
func ExampleRepo_Patch() {
	ctx := context.Background()
	owner := uuid.MustParse("6ba7b810-9dad-11d1-80b4-00c04fd430c8")
	id := uuid.MustParse("0192f0c4-6a9e-7c3e-8d1e-5f6a7b8c9d0e")
	rt, _ := kstore.New(printer{}, Planner)
	defer rt.Close(ctx)
	todos := kstore.MustNewRepo(rt, Todos)
	// snippet: patch
	done := kandra.MustFieldOf(Todos, func(t *Todo) *bool { return &t.Done })
	tags := kandra.MustFieldOf(Todos, func(t *Todo) *[]string { return &t.Tags })
	out, err := todos.Patch(ctx, &Todo{OwnerID: owner, TodoID: id}, // the key: nothing is read
		kstore.Set(done, true).And(kstore.Append(tags, "urgent")))
	// out.Applied is false when the todo does not exist: nothing is created
	// end snippet
	fmt.Println(out.Applied, err)

	// Another writer marked it done first: the condition fails, and the
	// server returns done's current value.
	rt2, _ := kstore.New(notApplied{row: map[string]any{"done": true}}, Planner)
	defer rt2.Close(ctx)
	todos = kstore.MustNewRepo(rt2, Todos)
	// snippet: patchif
	out, err = todos.Patch(ctx, &Todo{OwnerID: owner, TodoID: id},
		kstore.Set(done, true).And(kstore.Append(tags, "urgent")).If(kstore.Eq(done, false)))
	if err == nil && !out.Applied && out.Exists {
		fmt.Println("already done:", out.Current.Done) // the row's values of the condition's columns
	}
	// end snippet
	// Output:
	// UPDATE app.todos SET done = ?, tags = tags + ?, updated_at = ? WHERE owner_id = ? AND todo_id = ? IF EXISTS
	// true <nil>
	// UPDATE app.todos SET done = ?, tags = tags + ?, updated_at = ? WHERE owner_id = ? AND todo_id = ? IF done = ?
	// already done: true
}

// Upsert turns the default condition off: one plain UPDATE, as
// Cassandra's, which creates a missing row and may carry a client
// timestamp. A conditional write cannot.
func ExampleUpsert() {
	ctx := context.Background()
	rt, _ := kstore.New(printer{}, Planner)
	defer rt.Close(ctx)
	todos := kstore.MustNewRepo(rt, Todos)
	key := &Todo{OwnerID: uuid.MustParse("6ba7b810-9dad-11d1-80b4-00c04fd430c8"), TodoID: uuid.MustParse("0192f0c4-6a9e-7c3e-8d1e-5f6a7b8c9d0e")}
	labels := kandra.MustFieldOf(Todos, func(t *Todo) *map[string]struct{} { return &t.Labels })
	at := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	// snippet: upsert
	// A plain UPDATE: no lightweight transaction, and a missing row is created.
	_, err := todos.Patch(ctx, key, kstore.Add(labels, "home"), kstore.Upsert(), kstore.Timestamp(at))
	// end snippet
	fmt.Println(err)
	_, err = todos.Patch(ctx, key, kstore.Add(labels, "home"), kstore.Timestamp(at))
	fmt.Println(strings.TrimPrefix(err.Error(), "kandra: "))
	// Output:
	// UPDATE app.todos USING TIMESTAMP ? SET labels = labels + ?, updated_at = ? WHERE owner_id = ? AND todo_id = ?
	// <nil>
	// invalid argument: Patch on todos: Timestamp: a conditional write (a lightweight transaction) cannot carry a client timestamp: the servers refuse it; pass Upsert without conditions to write at a timestamp
}

// DeleteRange deletes rows of one partition in one statement, selected as
// List selects them: a clustering prefix, a range after it, or the whole
// partition. A table with lookups is refused: their rows would stay.
func ExampleRepo_DeleteRange() {
	ctx := context.Background()
	rt, _ := kstore.New(printer{}, Planner)
	defer rt.Close(ctx)
	readings := kstore.MustNewRepo(rt, Readings)
	day := kandra.MustFieldOf(Readings, func(r *Reading) *string { return &r.Day })
	at := kandra.MustFieldOf(Readings, func(r *Reading) *time.Time { return &r.At })
	noon := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	// snippet: deleterange
	s1 := &Reading{Sensor: "s1"} // the partition key: its other fields are ignored
	err := errors.Join(
		readings.DeleteRange(ctx, s1, kstore.Equal(day, "2026-12-01")),                             // a day
		readings.DeleteRange(ctx, s1, kstore.Equal(day, "2026-12-02"), kstore.To(at, noon, false)), // a morning
		readings.DeleteRange(ctx, s1), // every row of s1
	)
	// end snippet
	fmt.Println(err)

	rt2, _ := kstore.New(printer{}, App)
	defer rt2.Close(ctx)
	accounts := kstore.MustNewRepo(rt2, Accounts)
	err = accounts.DeleteRange(ctx, &Account{ID: uuid.MustParse("6ba7b810-9dad-11d1-80b4-00c04fd430c8")})
	fmt.Println(strings.TrimPrefix(err.Error(), "kandra: "))
	// Output:
	// DELETE FROM app.readings WHERE sensor = ? AND day = ?
	// DELETE FROM app.readings WHERE sensor = ? AND day = ? AND at < ?
	// DELETE FROM app.readings WHERE sensor = ?
	// <nil>
	// invalid argument: DeleteRange on accounts: the table: accounts has lookup tables, whose rows of the deleted rows' values would stay: List the rows and DeleteAll them
}

// DeleteIf deletes a row when it meets a condition, and returns the row's
// current values of the condition's columns when it does not.
func ExampleRepo_DeleteIf() {
	ctx := context.Background()
	rt, _ := kstore.New(notApplied{row: map[string]any{"done": false}}, Planner)
	defer rt.Close(ctx)
	todos := kstore.MustNewRepo(rt, Todos)
	done := kandra.MustFieldOf(Todos, func(t *Todo) *bool { return &t.Done })
	key := &Todo{OwnerID: uuid.MustParse("6ba7b810-9dad-11d1-80b4-00c04fd430c8"), TodoID: uuid.MustParse("0192f0c4-6a9e-7c3e-8d1e-5f6a7b8c9d0e")}
	// snippet: deleteif
	out, err := todos.DeleteIf(ctx, key, kstore.Eq(done, true)) // only a done todo goes
	if err == nil && !out.Applied && out.Exists {
		fmt.Println("kept: done is", out.Current.Done) // the row's current value
	}
	// end snippet
	// Output:
	// DELETE FROM app.todos WHERE owner_id = ? AND todo_id = ? IF done = ?
	// kept: done is false
}

// OmitNulls sends the null columns of a write as "unset": the write
// leaves no null cell (a tombstone) and keeps what those columns held. A
// table declared with kandra.OmitNulls does it on every write, and
// WriteNulls writes them as null again (a full replace of the row).
func ExampleOmitNulls() {
	ctx := context.Background()
	rt, _ := kstore.New(unsetPrinter{}, Planner)
	defer rt.Close(ctx)
	todos := kstore.MustNewRepo(rt, Todos)
	profiles := kstore.MustNewRepo(rt, Profiles)
	t := &Todo{OwnerID: uuid.MustParse("6ba7b810-9dad-11d1-80b4-00c04fd430c8"), Title: "Buy milk"}
	// snippet: omitnulls
	err := errors.Join(
		todos.Save(ctx, t),                                          // a full replace: the nil tags, labels, fields and note are written null
		todos.Save(ctx, t, kstore.OmitNulls()),                      // left unset
		profiles.Save(ctx, &Profile{ID: "p1"}),                      // a kandra.OmitNulls table: left unset
		profiles.Save(ctx, &Profile{ID: "p1"}, kstore.WriteNulls()), // written null, for this call
	)
	// end snippet
	fmt.Println(err)
	// Output:
	// INSERT INTO app.todos (owner_id, todo_id, title, done, tags, labels, fields, note, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
	//   unset: []
	// INSERT INTO app.todos (owner_id, todo_id, title, done, tags, labels, fields, note, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
	//   unset: [tags labels fields note]
	// INSERT INTO app.profiles (id, name, phone, company, born) VALUES (?, ?, ?, ?, ?)
	//   unset: [phone company born]
	// INSERT INTO app.profiles (id, name, phone, company, born) VALUES (?, ?, ?, ?, ?)
	//   unset: []
	// <nil>
}
