package integration

import (
	"context"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/driver/kgocql"
	"github.com/kandra-go/kandra/kstore"
	"github.com/kandra-go/kandra/migrate"
)

// User is the README's User (examples/todos/quickstart.User), declared
// here so that the driver snippet below compiles exactly as the README
// prints it, right after that declaration.
type User struct {
	UserID      uuid.UUID
	Email       string
	DisplayName string
	CreatedAt   time.Time
	Version     int64
}

func (u *User) Describe(s *kandra.Schema[User]) {
	s.Table("users")
	kandra.Bind(s, &u.UserID, kandra.PartitionKey(0))
	kandra.Bind(s, &u.Email, kandra.Lookup("by_email", kandra.LookupUnique))
	kandra.CreatedAt(s, &u.CreatedAt)
	kandra.Version(s, &u.Version)
}

// The code between the markers is copied verbatim into README.md: keep it
// small, self-contained and real.

// snippet: driver
// signUp brings the keyspace to the schema (safe steps only), saves u
// once its email is claimed in users_by_email, and finds it again by its
// email.
func signUp(ctx context.Context, session *gocql.Session, keyspace string, u *User) (*User, error) {
	users := kandra.MustRegister[User]()
	app, err := kandra.NewKeyspace(kandra.KeyspaceSpec{
		Name:        keyspace,
		Replication: kandra.NetworkTopologyStrategy(map[string]int{"datacenter1": 1}),
		Targets:     kandra.Cassandra5,
	}, users)
	if err != nil {
		return nil, err
	}
	d := kgocql.New(session)
	if _, err := migrate.Apply(ctx, d, app, migrate.ApplyOptions{}); err != nil {
		return nil, err
	}
	rt, err := kstore.New(d, app)
	if err != nil {
		return nil, err
	}
	defer func() { _ = rt.Close(ctx) }() // waits for the calls in progress and their EVENTUAL lookup writes
	repo := kstore.MustNewRepo(rt, users)
	if err := repo.Save(ctx, u); err != nil { // stamps CreatedAt, moves Version to 1
		return nil, err
	}
	byEmail := kstore.MustLookupOf(repo, kandra.MustFieldOf(users, func(u *User) *string { return &u.Email }))
	return byEmail.Find(ctx, u.Email)
}

// end snippet

// TestReadmeDriverSnippet runs the README's runtime snippet against the
// node: the user found by email is the one saved, stamp included, and a
// second run of the migration finds nothing to do.
func TestReadmeDriverSnippet(t *testing.T) {
	s := session(t)
	ks := keyspaceName("readme")
	trackKeyspace(ks)
	ctx := context.Background()
	u := &User{UserID: uuid.New(), Email: "ada@example.com", DisplayName: "Ada"}
	got, err := signUp(ctx, s, ks, u)
	require.NoError(t, err)
	require.False(t, u.CreatedAt.IsZero(), "Save stamps CreatedAt")
	require.Equal(t, int64(1), u.Version, "Save of a new entity writes version 1")
	require.Equal(t, *u, *got)
	again, err := signUp(ctx, s, ks, &User{UserID: uuid.New(), Email: "bob@example.com"})
	require.NoError(t, err)
	require.Equal(t, "bob@example.com", again.Email)
}
