package kandra_test

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
	"github.com/kandra-go/kandra/kerrors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type Audit struct {
	CreatedAt time.Time
	UpdatedAt time.Time
}

type Account struct {
	ID      uuid.UUID
	Email   string
	Balance int64
	Tags    []string
	Audit   // flattened: created_at, updated_at
	secret  string
	Scratch string
}

func (a *Account) Describe(s *kandra.Schema[Account]) {
	s.Table("accounts")
	kandra.Bind(s, &a.ID, kandra.PartitionKey(0))
	kandra.Bind(s, &a.Email, kandra.Sensitive())
	kandra.CreatedAt(s, &a.CreatedAt)
	kandra.UpdatedAt(s, &a.UpdatedAt)
	kandra.Bind(s, &a.Scratch, kandra.Transient())
	s.Validate(kandra.ValidatorFunc[Account](func(a *Account) []kandra.FieldError {
		var errs []kandra.FieldError
		if a.Email == "" {
			errs = append(errs, kandra.FieldError{Field: "email", Message: "must not be blank"})
		}
		if a.Balance < 0 {
			errs = append(errs, kandra.FieldError{Field: "balance", Message: "must be >= 0"})
		}
		return errs
	}))
}

func registerAccounts(t *testing.T) *kandra.Table[Account] {
	t.Helper()
	return kandra.MustRegister[Account]()
}

func TestColumnsOfAnEntity(t *testing.T) {
	accounts := registerAccounts(t)
	var names []string
	for _, c := range accounts.Schema().Columns() {
		names = append(names, c.Name())
	}
	// Unexported and Transient fields are not columns; Audit is flattened.
	assert.Equal(t, []string{"id", "email", "balance", "tags", "created_at", "updated_at"}, names)
	ts := accounts.Schema()
	assert.True(t, ts.ColumnByName("email").IsSensitive())
	assert.Equal(t, "Audit.CreatedAt", ts.CreatedAtColumn().GoName())
	assert.Equal(t, "LIST<TEXT>", ts.ColumnByName("tags").Decl())
	for i, c := range ts.Columns() {
		assert.Equal(t, i, c.Position())
	}
}

func TestFieldGetSet(t *testing.T) {
	accounts := registerAccounts(t)
	email := kandra.MustFieldOf(accounts, func(a *Account) *string { return &a.Email })
	created := kandra.MustFieldOf(accounts, func(a *Account) *time.Time { return &a.CreatedAt })
	id := kandra.MustFieldOf(accounts, func(a *Account) *uuid.UUID { return &a.ID })

	assert.Equal(t, "email", email.Name())
	assert.Equal(t, "created_at", created.CQLName())
	assert.Equal(t, kandra.PartitionKeyColumn, id.Role())
	assert.Equal(t, kandra.RegularColumn, email.Role())

	a := &Account{Email: "a@example.com"}
	assert.Equal(t, "a@example.com", email.Get(a))
	email.Set(a, "b@example.com")
	assert.Equal(t, "b@example.com", a.Email)
	now := time.Now()
	created.Set(a, now)
	assert.Equal(t, now, a.CreatedAt, "the embedded struct's field is written")
	*id.Pointer(a) = uuid.Max
	assert.Equal(t, uuid.Max, a.ID)
}

func TestFieldOfRejectsNonColumns(t *testing.T) {
	accounts := registerAccounts(t)
	_, err := kandra.FieldOf(accounts, func(a *Account) *string { return &a.Scratch })
	require.ErrorIs(t, err, kerrors.ErrSchema, "a Transient field has no column")
	_, err = kandra.FieldOf(accounts, func(a *Account) *string { return &a.secret })
	require.ErrorIs(t, err, kerrors.ErrSchema, "an unexported field has no column")
	other := "x"
	_, err = kandra.FieldOf(accounts, func(a *Account) *string { return &other })
	require.ErrorIs(t, err, kerrors.ErrSchema, "not a field of the entity")
	_, err = kandra.FieldOf(accounts, func(a *Account) *Audit { return &a.Audit })
	require.ErrorIs(t, err, kerrors.ErrSchema, "the embedded struct itself is not a column")
}

func TestAccessorsDoNotAllocate(t *testing.T) {
	accounts := registerAccounts(t)
	email := kandra.MustFieldOf(accounts, func(a *Account) *string { return &a.Email })
	created := kandra.MustFieldOf(accounts, func(a *Account) *time.Time { return &a.CreatedAt })
	a := &Account{Email: "a@example.com"}
	a.CreatedAt = time.Now()
	dst := make([]any, 0, 16)
	ts := accounts.Schema()
	col := ts.ColumnByName("balance")
	var sink int
	cases := map[string]func(){
		"Field.Get":      func() { sink += len(email.Get(a)) + created.Get(a).Nanosecond() },
		"Field.Set":      func() { email.Set(a, "c@example.com"); created.Set(a, time.Time{}) },
		"Table.Pointers": func() { dst = accounts.Pointers(a, dst[:0]) },
		"ColumnSchema.Pointer": func() {
			p, err := col.Pointer(a)
			if err != nil {
				t.Fatal(err)
			}
			dst = append(dst[:0], p)
		},
	}
	for name, fn := range cases {
		assert.Zero(t, testing.AllocsPerRun(1000, fn), name)
	}
	_ = sink
}

func TestPerRowPointersAddressTheFields(t *testing.T) {
	accounts := registerAccounts(t)
	a := &Account{ID: uuid.New(), Email: "e", Balance: 7, Tags: []string{"x"}}
	a.CreatedAt = time.Unix(1, 0)
	ptrs := accounts.Pointers(a, nil)
	require.Len(t, ptrs, accounts.Schema().NumColumns())
	assert.Same(t, &a.ID, ptrs[0].(*uuid.UUID))
	assert.Same(t, &a.Email, ptrs[1].(*string))
	assert.Same(t, &a.Balance, ptrs[2].(*int64))
	assert.Same(t, &a.Tags, ptrs[3].(*[]string))
	assert.Same(t, &a.CreatedAt, ptrs[4].(*time.Time))
	assert.Same(t, &a.UpdatedAt, ptrs[5].(*time.Time))

	// Scanning writes through the same addresses.
	*accounts.Pointers(a, nil)[2].(*int64) = 42
	assert.Equal(t, int64(42), a.Balance)

	// The untyped accessors check the entity type.
	_, err := accounts.Schema().Column(0).Pointer(&Ledger{})
	assert.Error(t, err)
	_, err = accounts.Schema().Column(0).Pointer(*a)
	assert.Error(t, err, "a value, not a pointer")
	_, err = accounts.Schema().Column(0).Pointer((*Account)(nil))
	assert.Error(t, err, "a nil pointer")
	_, err = accounts.Schema().Column(0).Pointer("x")
	assert.Error(t, err)

	pk := accounts.ColumnPointers(a, accounts.Schema().PrimaryKey(), nil)
	require.Len(t, pk, 1)
	assert.Same(t, &a.ID, pk[0].(*uuid.UUID))
}

func TestValidatorsRunThroughTheTable(t *testing.T) {
	accounts := registerAccounts(t)
	require.NoError(t, accounts.Validate(&Account{Email: "a@example.com"}))
	err := accounts.Validate(&Account{Balance: -1})
	require.Error(t, err)
	assert.Equal(t, "Validation failed: email: must not be blank; balance: must be >= 0", err.Error())
	var ve *kerrors.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Len(t, ve.Errors, 2)
	assert.ErrorIs(t, err, kerrors.ErrValidation)
}

func TestFieldOfNamesTheField(t *testing.T) {
	accounts := registerAccounts(t)
	_, err := kandra.FieldOf(accounts, func(a *Account) *string { return &a.Scratch })
	var se *kandra.SchemaError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "Scratch", se.Field)
	assert.Equal(t, kandra.RuleBinding, se.Rule)
	assert.Contains(t, err.Error(), "Scratch")
}
