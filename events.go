package kandra

// EventListener receives events the runtime cannot report through a returned
// error: a failed asynchronous lookup write, and authentication events of
// the session's connections (a failed login, refreshed credentials).
//
// Experimental: this API may change in a minor release.
//
// # Adding callbacks never breaks an implementation
//
// Every implementation must embed [NopEventListener] (by value), or be an
// [EventListenerFunc]. This is enforced, not just recommended: the interface
// has an unexported method that only those two types provide, so no other
// type can satisfy it. When a callback is added to EventListener, it is
// added to NopEventListener and EventListenerFunc in the same release as a
// no-op, and every existing implementation inherits that default and keeps
// compiling.
//
// OnEventualWriteFailed has no default: NopEventListener deliberately lacks
// it, so the compiler makes an implementation handle it, because a lookup
// write that failed after its primary write succeeded leaves the lookup
// table out of step and must not be dropped silently.
//
// The runtime (not this package) calls these callbacks; they run on the
// runtime's goroutines, possibly concurrently: they
// must be safe for concurrent use and should not block.
type EventListener interface {
	// OnEventualWriteFailed reports that the runtime's asynchronous
	// ([LookupEventual]) write to the lookup table lookupTable (its name,
	// as LookupTableSchema.Name gives it, never the primary table's) failed
	// with err, after the primary row of entity (a pointer to the entity
	// that was written) had been written successfully. The lookup table is
	// now out of step for that entity; a typical implementation publishes
	// the entity to a dead-letter queue for repair.
	OnEventualWriteFailed(lookupTable string, entity any, err error)
	// OnAuthFailed reports that authentication against contactPoint failed.
	OnAuthFailed(contactPoint string, err error)
	// OnCredentialRefreshed reports that the credentials provider was asked
	// again and returned new credentials.
	OnCredentialRefreshed()

	// embedsNopEventListener restricts implementations to types that get
	// defaults for future callbacks; see the type's doc comment.
	embedsNopEventListener()
}

// NopEventListener provides a no-op for every optional [EventListener]
// callback. Embed it by value in every implementation (the interface
// requires it) and override the callbacks you need; callbacks added to
// EventListener later get a no-op here too, so your type keeps compiling.
//
// It does not implement OnEventualWriteFailed: every listener must decide
// what to do about a failed eventual lookup write.
//
// Experimental, like [EventListener].
type NopEventListener struct{}

// OnAuthFailed does nothing.
func (NopEventListener) OnAuthFailed(contactPoint string, err error) {}

// OnCredentialRefreshed does nothing.
func (NopEventListener) OnCredentialRefreshed() {}

func (NopEventListener) embedsNopEventListener() {}

// EventListenerFunc adapts a function to an [EventListener] that handles
// only OnEventualWriteFailed; every other callback is a no-op. It is the
// shortest way to wire a dead-letter queue. The function must not be nil.
//
// Experimental, like [EventListener].
type EventListenerFunc func(lookupTable string, entity any, err error)

// OnEventualWriteFailed calls f(lookupTable, entity, err).
func (f EventListenerFunc) OnEventualWriteFailed(lookupTable string, entity any, err error) {
	f(lookupTable, entity, err)
}

// OnAuthFailed does nothing.
func (EventListenerFunc) OnAuthFailed(contactPoint string, err error) {}

// OnCredentialRefreshed does nothing.
func (EventListenerFunc) OnCredentialRefreshed() {}

func (EventListenerFunc) embedsNopEventListener() {}
