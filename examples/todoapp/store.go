// The data layer of the todo service: everything that talks to the node.
package main

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kstore"
)

type User struct {
	UserID                 uuid.UUID
	Email, TicketRef, Name string
	CreatedAt, UpdatedAt   time.Time
}

func (u *User) Describe(s *kandra.Schema[User]) {
	s.Table("users")
	kandra.GeneratedUUID(s, &u.UserID, kandra.UUIDRandom, kandra.PartitionKey(0))
	kandra.Bind(s, &u.Email, kandra.Lookup("by_email", kandra.LookupUnique))
	kandra.Bind(s, &u.TicketRef, kandra.Lookup("by_ticket_ref", kandra.LookupEventual))
	kandra.CreatedAt(s, &u.CreatedAt)
	kandra.UpdatedAt(s, &u.UpdatedAt)
}

// Todo is soft-deleted: a deleted todo stays for a day, hidden.
type Todo struct {
	OwnerID, TodoID uuid.UUID
	Title           string
	Done, Deleted   bool
	CreatedAt       time.Time
}

func (t *Todo) Describe(s *kandra.Schema[Todo]) {
	s.Table("todos", kandra.SoftDelete(86400*time.Second, &t.Deleted))
	kandra.Bind(s, &t.OwnerID, kandra.PartitionKey(0))
	kandra.GeneratedUUID(s, &t.TodoID, kandra.UUIDTimeOrdered, kandra.ClusteringKey(0, kandra.ClusteringDesc))
	kandra.CreatedAt(s, &t.CreatedAt)
}

// TodoStats counts the todos a user ever created.
type TodoStats struct {
	OwnerID uuid.UUID
	Created int64
}

func (c *TodoStats) Describe(s *kandra.Schema[TodoStats]) {
	s.Table("todo_stats")
	kandra.Bind(s, &c.OwnerID, kandra.PartitionKey(0))
	kandra.Counter(s, &c.Created)
}

// Prefs is versioned: concurrent edits conflict.
type Prefs struct {
	UserID  uuid.UUID
	Theme   string
	Version int64
}

func (c *Prefs) Describe(s *kandra.Schema[Prefs]) {
	s.Table("prefs")
	kandra.Bind(s, &c.UserID, kandra.PartitionKey(0))
	kandra.Version(s, &c.Version)
}

var (
	Users       = kandra.MustRegister[User]()
	Todos       = kandra.MustRegister[Todo]()
	Stats       = kandra.MustRegister[TodoStats]()
	Preferences = kandra.MustRegister[Prefs]()
)

// Store is the data layer.
type Store struct {
	users             *kstore.Repo[User]
	todos             *kstore.Repo[Todo]
	prefs             *kstore.Repo[Prefs]
	stats             *kstore.Repo[TodoStats]
	byEmail, byTicket *kstore.Lookup[User, string]
	created           *kstore.Counter[TodoStats]
}

// snippet: runtime
func NewStore(rt *kstore.Store) *Store {
	s := &Store{users: kstore.MustNewRepo(rt, Users), todos: kstore.MustNewRepo(rt, Todos),
		prefs: kstore.MustNewRepo(rt, Preferences), stats: kstore.MustNewRepo(rt, Stats)}
	s.byEmail = kstore.MustLookupOf(s.users, kandra.MustFieldOf(Users, func(u *User) *string { return &u.Email }))
	s.byTicket = kstore.MustLookupOf(s.users, kandra.MustFieldOf(Users, func(u *User) *string { return &u.TicketRef }))
	s.created = kstore.MustCounterOf(s.stats, kandra.MustFieldOf(Stats, func(c *TodoStats) *int64 { return &c.Created }))
	return s
}

func (s *Store) SignUp(ctx context.Context, email, name, ticket string) (*User, error) {
	u := &User{Email: email, Name: name, TicketRef: ticket}
	return u, s.users.Save(ctx, u)
}

func (s *Store) LogIn(ctx context.Context, email string) (*User, error) {
	return s.byEmail.Find(ctx, email)
}

// end snippet

func (s *Store) ByTicket(ctx context.Context, ref string) (*User, error) {
	return s.byTicket.Find(ctx, ref)
}

// snippet: changeemail
func (s *Store) ChangeEmail(ctx context.Context, u *User, email string) (*User, error) {
	nu := *u
	nu.Email = email
	return &nu, s.users.Update(ctx, u, &nu)
}

// end snippet

func (s *Store) AddTodo(ctx context.Context, owner uuid.UUID, title string) (*Todo, error) {
	t := &Todo{OwnerID: owner, Title: title}
	if err := s.todos.Save(ctx, t); err != nil {
		return nil, err
	}
	return t, s.created.Increment(ctx, &TodoStats{OwnerID: owner}, 1)
}

// Todos is one page of live todos, newest first; next is "" at the end.
func (s *Store) Todos(ctx context.Context, owner uuid.UUID, cursor string, n int) (page []*Todo, next string, err error) {
	c, err := kstore.ParseCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	it := s.todos.List(ctx, &Todo{OwnerID: owner}, kstore.SkipDeleted(), kstore.PageSize(n), kstore.After(c))
	page, err = it.All()
	return page, it.Cursor().String(), err
}

func (s *Store) DeleteTodo(ctx context.Context, t *Todo) error { return s.todos.Delete(ctx, t) }

func (s *Store) Stats(ctx context.Context, owner uuid.UUID) (*TodoStats, error) {
	return s.stats.Get(ctx, &TodoStats{OwnerID: owner})
}

func (s *Store) SavePrefs(ctx context.Context, p *Prefs) error { return s.prefs.Save(ctx, p) }

func (s *Store) Prefs(ctx context.Context, user uuid.UUID) (*Prefs, error) {
	return s.prefs.Get(ctx, &Prefs{UserID: user})
}

// SetTheme fails with *kerrors.OptimisticLockError if old is out of date.
func (s *Store) SetTheme(ctx context.Context, old *Prefs, theme string) (*Prefs, error) {
	nw := *old
	nw.Theme = theme
	return &nw, s.prefs.Update(ctx, old, &nw)
}
