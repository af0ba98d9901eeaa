package integration

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/kandra-go/kandra"
	kgocql "github.com/kandra-go/kandra/driver/gocql"
)

// User is the README's User (examples/todos/model.User), declared here so
// that the driver snippet below compiles exactly as the README prints it,
// right after that declaration.
type User struct {
	UserID      uuid.UUID
	Email       string
	DisplayName string
	CreatedAt   time.Time
}

func (u *User) Describe(s *kandra.Schema[User]) {
	s.Table("users")
	kandra.Bind(s, &u.UserID, kandra.PartitionKey(0))
	kandra.Bind(s, &u.Email, kandra.Lookup("by_email", kandra.LookupBatch))
	kandra.CreatedAt(s, &u.CreatedAt)
}

// The code between the markers is copied verbatim into README.md: keep it
// small, self-contained and real.

// snippet: driver
// saveAndLoad creates the keyspace, writes u's row (a runtime would also
// write its users_by_email row) and reads the row back by its key.
func saveAndLoad(session *gocql.Session, keyspace string, u User) (User, error) {
	users := kandra.MustRegister[User]()
	app, err := kandra.NewKeyspace(kandra.KeyspaceSpec{
		Name:        keyspace,
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"datacenter1": 1}), // every target
	}, users)
	if err != nil {
		return User{}, err
	}
	for _, stmt := range app.Statements() { // keyspace, tables, lookup tables, indexes
		if err := session.Query(stmt).Exec(); err != nil {
			return User{}, err
		}
	}
	cols := users.Schema().Columns()
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.CQLName()
	}
	table := kandra.QuoteIdent(keyspace) + "." + users.Schema().CQLName()
	key := users.Schema().PartitionKeys()[0]
	insert := fmt.Sprintf("INSERT INTO %s (%s) VALUES (?%s)", table, strings.Join(names, ", "), strings.Repeat(", ?", len(cols)-1))
	query := fmt.Sprintf("SELECT %s FROM %s WHERE %s = ?", strings.Join(names, ", "), table, key.CQLName())

	// gocql v1.7.0 cannot marshal uuid.UUID, so the values go through the
	// integration suite's Codec; the kandra runtime will do this instead.
	codec, err := kgocql.NewCodec(cols)
	if err != nil {
		return User{}, err
	}
	values := codec.BindValues(users.Pointers(&u, nil))
	if err := session.Query(insert, values...).Exec(); err != nil {
		return User{}, err
	}
	var got User
	targets, finish := codec.ScanTargets(users.Pointers(&got, nil))
	if err := session.Query(query, values[key.Position()]).Scan(targets...); err != nil {
		return User{}, err
	}
	return got, finish()
}

// end snippet

// TestReadmeDriverSnippet runs the README's driver snippet against the
// node: the row it writes comes back equal.
func TestReadmeDriverSnippet(t *testing.T) {
	s := session(t)
	ks := keyspaceName("readme")
	trackKeyspace(ks)
	// A TIMESTAMP keeps milliseconds; Truncate also drops the monotonic
	// reading, so the value read back is equal, not just Equal.
	u := User{UserID: uuid.New(), Email: "ada@example.com", DisplayName: "Ada", CreatedAt: time.Now().UTC().Truncate(time.Millisecond)}
	got, err := saveAndLoad(s, ks, u)
	require.NoError(t, err)
	require.Equal(t, u, got)
}
