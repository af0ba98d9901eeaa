package kandra_test

import (
	"errors"
	"fmt"

	"github.com/kandra-go/kandra"
)

func ExampleNewTimeOrderedUUID() {
	a := kandra.NewTimeOrderedUUID()
	b := kandra.NewTimeOrderedUUID()
	fmt.Println(a.Version(), a.Variant())
	// Later ids compare greater, also within the same millisecond.
	fmt.Println(a.String() < b.String())
	// Output:
	// VERSION_7 RFC4122
	// true
}

func ExampleUUIDStrategy() {
	var s kandra.UUIDStrategy // the zero value is UUIDTimeOrdered
	fmt.Println(s, s.New().Version())
	fmt.Println(kandra.UUIDRandom, kandra.UUIDRandom.New().Version())
	// Output:
	// UUIDTimeOrdered VERSION_7
	// UUIDRandom VERSION_4
}

func ExampleParseConsistency() {
	c, err := kandra.ParseConsistency("local_quorum")
	fmt.Println(c, uint16(c), err)

	// The value is the native protocol code, so a driver's type is a plain
	// conversion, for example gocql.Consistency(c).
	fmt.Printf("%#04x\n", uint16(kandra.ConsistencyLocalOne))
	fmt.Println(kandra.ConsistencyLocalSerial.IsSerial())

	_, err = kandra.ParseConsistency("FAST")
	fmt.Println(err)
	// Output:
	// LOCAL_QUORUM 6 <nil>
	// 0x000a
	// true
	// kandra: invalid argument: ParseConsistency: "FAST": unknown consistency level "FAST" (valid: ANY, ONE, TWO, THREE, QUORUM, ALL, LOCAL_QUORUM, EACH_QUORUM, SERIAL, LOCAL_SERIAL, LOCAL_ONE)
}

func ExampleConsistency_MarshalText() {
	text, _ := kandra.ConsistencyEachQuorum.MarshalText()
	fmt.Println(string(text))

	var c kandra.Consistency
	err := c.UnmarshalText([]byte("Local_One"))
	fmt.Println(c, err)

	_, err = kandra.Consistency(0x0b).MarshalText()
	fmt.Println(err)
	// Output:
	// EACH_QUORUM
	// LOCAL_ONE <nil>
	// kandra: invalid argument: Consistency.MarshalText: Consistency(0x0b): cannot marshal invalid consistency level "Consistency(0x0b)"
}

// deadLetterListener handles failed eventual lookup writes and failed
// logins; every other callback, including ones added in later releases,
// keeps the no-op from the embedded NopEventListener.
type deadLetterListener struct {
	kandra.NopEventListener
}

func (deadLetterListener) OnEventualWriteFailed(lookupTable string, entity any, err error) {
	fmt.Printf("dead letter: %s %v: %v\n", lookupTable, entity, err)
}

func (deadLetterListener) OnAuthFailed(contactPoint string, err error) {
	fmt.Printf("login to %s failed: %v\n", contactPoint, err)
}

func ExampleNopEventListener() {
	var l kandra.EventListener = deadLetterListener{}
	l.OnAuthFailed("10.0.0.1:9042", errors.New("bad credentials"))
	l.OnEventualWriteFailed("users_by_email", "user-1", errors.New("timeout"))
	l.OnCredentialRefreshed() // no-op from NopEventListener
	// Output:
	// login to 10.0.0.1:9042 failed: bad credentials
	// dead letter: users_by_email user-1: timeout
}

func ExampleEventListenerFunc() {
	l := kandra.EventListenerFunc(func(table string, entity any, err error) {
		fmt.Println("repair", table, entity, err)
	})
	l.OnEventualWriteFailed("users_by_email", 42, errors.New("unavailable"))
	l.OnAuthFailed("10.0.0.1:9042", errors.New("bad credentials")) // no-op
	// Output: repair users_by_email 42 unavailable
}
