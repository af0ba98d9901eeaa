package kstore

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"hash/fnv"
)

// Sealed cursors. A cursor travels in URLs and logs, and it holds the
// server's page state, which carries the key of the last row read (the
// partition key too, for a read across partitions), and the fingerprint
// of its query, which must tell apart two partitions or two values. The
// cursor of a query that binds a Sensitive value, or that pages a table
// whose primary key has a Sensitive column, would show those values:
// such a cursor is sealed instead (AES-GCM under a key the store
// holds), and its fingerprint is a keyed hash (HMAC-SHA-256), so that
// neither the state nor the fingerprint tells anything about the values
// without the key. Other cursors are as before: the plain page state and
// an unkeyed hash, so that they resume in any process.
//
// The key is WithCursorKey's, or else a random one drawn by New: a sealed
// cursor then resumes only in the store that made it.

// MinCursorKeyBytes is the shortest key WithCursorKey takes.
const MinCursorKeyBytes = 32

// sealedBit is set in the fingerprint of a query whose cursors are sealed:
// the call that makes a cursor and the call that resumes one both read it
// from the fingerprint, so neither needs to be told.
const sealedBit = 1

// cursorKeys are the keys a store derives from its cursor key: one for
// the AEAD, one for the synthetic nonces, one for the fingerprints.
type cursorKeys struct {
	aead  cipher.AEAD
	nonce []byte
	fp    []byte
}

// newCursorKeys derives the keys of secret (nil: a random one).
func newCursorKeys(secret []byte) (*cursorKeys, error) {
	if secret == nil {
		secret = make([]byte, MinCursorKeyBytes)
		if _, err := rand.Read(secret); err != nil {
			return nil, err
		}
	}
	derive := func(label string) []byte {
		m := hmac.New(sha256.New, secret)
		m.Write([]byte("kandra/kstore cursor " + label))
		return m.Sum(nil)
	}
	block, err := aes.NewCipher(derive("seal")) // 32 bytes: AES-256
	if err != nil {
		panic("kandra/kstore: " + err.Error()) // unreachable: the key size is valid
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic("kandra/kstore: " + err.Error())
	}
	return &cursorKeys{aead: aead, nonce: derive("nonce"), fp: derive("fingerprint")}, nil
}

// sum is the fingerprint of a query of the given material (see
// queryPrint): an FNV-1a hash for a plain one, an HMAC for a sealed one,
// with sealedBit saying which.
func (k *cursorKeys) sum(material []byte, sealed bool) uint64 {
	if !sealed {
		h := fnv.New64a()
		h.Write(material)
		return h.Sum64() &^ sealedBit
	}
	m := hmac.New(sha256.New, k.fp)
	m.Write(material)
	return binary.BigEndian.Uint64(m.Sum(nil)) | sealedBit
}

// seal encrypts a page state, bound to the fingerprint fp. The nonce is
// synthetic (an HMAC of fp and the state), so that no count of cursors
// made under one key, in however many processes, risks a repeated nonce
// with another state; one state of one query always seals the same.
func (k *cursorKeys) seal(state []byte, fp uint64) []byte {
	var ad [8]byte
	binary.BigEndian.PutUint64(ad[:], fp)
	m := hmac.New(sha256.New, k.nonce)
	m.Write(ad[:])
	m.Write(state)
	nonce := m.Sum(nil)[:k.aead.NonceSize()]
	out := make([]byte, len(nonce), len(nonce)+len(state)+k.aead.Overhead())
	copy(out, nonce)
	return k.aead.Seal(out, nonce, state, ad[:])
}

// open decrypts what seal made for fp; ok is false for anything else.
func (k *cursorKeys) open(sealed []byte, fp uint64) (state []byte, ok bool) {
	n := k.aead.NonceSize()
	if len(sealed) < n+k.aead.Overhead() {
		return nil, false
	}
	var ad [8]byte
	binary.BigEndian.PutUint64(ad[:], fp)
	state, err := k.aead.Open(nil, sealed[:n], sealed[n:], ad[:])
	return state, err == nil
}

// cursor is the Cursor of the page state of the query whose fingerprint
// is fp, sealed when fp says so.
func (r *Store) cursor(state []byte, fp uint64) Cursor {
	if fp&sealedBit == 0 {
		return Cursor{state: append([]byte(nil), state...), query: fp}
	}
	return Cursor{state: r.keys.seal(state, fp), query: fp}
}

// resume reports whether c was made by the query whose fingerprint is fp,
// and opens a sealed page state in place (c is the call's copy of the
// caller's Cursor). A sealed cursor of another store's key has another
// fingerprint, or does not open: it is refused as another query's.
func (r *Store) resume(c *Cursor, fp uint64) bool {
	if c.query != fp {
		return false
	}
	if fp&sealedBit == 0 {
		return true
	}
	state, ok := r.keys.open(c.state, fp)
	if !ok || len(state) == 0 {
		return false
	}
	c.state = state
	return true
}

// refusedCursor is the message of a cursor that resume refused: msg, and
// for a sealed cursor the other reason it may have: made under another
// cursor key (another instance, or before a restart without
// WithCursorKey).
func refusedCursor(c Cursor, msg string) string {
	if c.query&sealedBit != 0 {
		return msg + "; or it is sealed (its query binds a Sensitive value) under another cursor key: give every instance, across restarts, the same kstore.WithCursorKey"
	}
	return msg
}
