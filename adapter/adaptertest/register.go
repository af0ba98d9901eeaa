package adaptertest

import (
	"net"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/kandra-go/kandra"
)

var registerOnce sync.Once

// register registers the suites' entity types with kandra and makes their
// field handles, once, when a suite first runs: importing the package
// registers nothing (TestImportRegistersNothing). kandra caches a type's
// registration, so a type registered here and again inside a scenario is
// one registration.
func register() {
	registerOnce.Do(func() {
		usersTable = kandra.MustRegister[user]()
		todosTable = kandra.MustRegister[todo]()
		walletsTable = kandra.MustRegister[wallet]()
		hitsTable = kandra.MustRegister[pageHits]()
		eventsTable = kandra.MustRegister[event]()
		devicesTable = kandra.MustRegister[device]()
		membersTable = kandra.MustRegister[member]()
		notesTable = kandra.MustRegister[note]()
		listingsTable = kandra.MustRegister[listing]()
		migAccountsV1 = kandra.MustRegister[migAccountV1]()
		migAccountsV2 = kandra.MustRegister[migAccountV2]()
		migPostsV1 = kandra.MustRegister[migPostV1]()
		migPostsV2 = kandra.MustRegister[migPostV2]()
		migPostsV3 = kandra.MustRegister[migPostV3]()
		migDocsV1 = kandra.MustRegister[migDocV1]()
		migDocsV2 = kandra.MustRegister[migDocV2]()
		adoptDocs = kandra.MustRegister[adoptDoc]()
		adoptDocsNamed = kandra.MustRegister[adoptDocNamed]()
		adoptDocsOther = kandra.MustRegister[adoptDocOther]()
		readingsTable = kandra.MustRegister[reading]()
		ticketsTable = kandra.MustRegister[ticket]()
		threadsTable = kandra.MustRegister[thread]()
		threadHitsTable = kandra.MustRegister[threadHits]()
		bookingsTable = kandra.MustRegister[booking]()
		shiftsTable = kandra.MustRegister[shift]()
		sittingsTable = kandra.MustRegister[sitting]()
		staysTable = kandra.MustRegister[stay]()
		diariesTable = kandra.MustRegister[diary]()
		talliesTable = kandra.MustRegister[tally]()
		customersTable = kandra.MustRegister[customer]()
		routesTable = kandra.MustRegister[route]()
		accountsV1Table = kandra.MustRegister[accountV1]()
		accountsV2Table = kandra.MustRegister[accountV2]()
		embeddingsTable = kandra.MustRegister[embedding]()
		docsV1 = kandra.MustRegister[docV1]()
		docsV2 = kandra.MustRegister[docV2]()

		userEmail = kandra.MustFieldOf(usersTable, func(u *user) *string { return &u.Email })
		userTicket = kandra.MustFieldOf(usersTable, func(u *user) *string { return &u.TicketRef })
		walletOwn = kandra.MustFieldOf(walletsTable, func(w *wallet) *string { return &w.Owner })
		hitsField = kandra.MustFieldOf(hitsTable, func(h *pageHits) *int64 { return &h.Hits })
		deviceSerial = kandra.MustFieldOf(devicesTable, func(d *device) *string { return &d.Serial })
		todoID = kandra.MustFieldOf(todosTable, func(t *todo) *uuid.UUID { return &t.TodoID })
		registerPartial()
		registerUnits()
		registerReads()
		memberHandle = kandra.MustFieldOf(membersTable, func(m *member) *string { return &m.Handle })
		listingTitle = kandra.MustFieldOf(listingsTable, func(l *listing) *string { return &l.Title })
		listingPrice = kandra.MustFieldOf(listingsTable, func(l *listing) *int64 { return &l.Price })
		listingListed = kandra.MustFieldOf(listingsTable, func(l *listing) *time.Time { return &l.ListedAt })
		listingTags = kandra.MustFieldOf(listingsTable, func(l *listing) *tagList { return &l.Tags })
		listingLabels = kandra.MustFieldOf(listingsTable, func(l *listing) *map[string]struct{} { return &l.Labels })
		listingAttrs = kandra.MustFieldOf(listingsTable, func(l *listing) *map[string]string { return &l.Attrs })
		listingSpecs = kandra.MustFieldOf(listingsTable, func(l *listing) *map[string]int32 { return &l.Specs })
		listingScores = kandra.MustFieldOf(listingsTable, func(l *listing) *map[string]int32 { return &l.Scores })
		listingPhoto = kandra.MustFieldOf(listingsTable, func(l *listing) *[]byte { return &l.Photo })
		listingsRegion = kandra.MustFieldOf(listingsTable, func(l *listing) *string { return &l.Region })
		readingDay = kandra.MustFieldOf(readingsTable, func(r *reading) *string { return &r.Day })
		readingAt = kandra.MustFieldOf(readingsTable, func(r *reading) *time.Time { return &r.At })
		userID = kandra.MustFieldOf(usersTable, func(u *user) *uuid.UUID { return &u.UserID })
		ticketStatus = kandra.MustFieldOf(ticketsTable, func(k *ticket) *string { return &k.Status })
		ticketTitle = kandra.MustFieldOf(ticketsTable, func(k *ticket) *string { return &k.Title })
		threadView = kandra.MustFieldOf(threadHitsTable, func(h *threadHits) *int64 { return &h.Views })
		threadLike = kandra.MustFieldOf(threadHitsTable, func(h *threadHits) *int64 { return &h.Likes })
		threadAuth = kandra.MustFieldOf(threadsTable, func(p *thread) *string { return &p.Author })
		bookingSlot = kandra.MustFieldOf(bookingsTable, func(b *booking) **slot { return &b.Slot })
		bookingAt = kandra.MustFieldOf(bookingsTable, func(b *booking) **time.Time { return &b.At })
		bookingAddr = kandra.MustFieldOf(bookingsTable, func(b *booking) *net.IP { return &b.Addr })
		bookingScore = kandra.MustFieldOf(bookingsTable, func(b *booking) **float64 { return &b.Score })
		shiftStart = kandra.MustFieldOf(shiftsTable, func(f *shift) *time.Time { return &f.Start })
		shiftEnd = kandra.MustFieldOf(shiftsTable, func(f *shift) *time.Time { return &f.End })
		shiftHost = kandra.MustFieldOf(shiftsTable, func(f *shift) *net.IP { return &f.Host })
		shiftPeer = kandra.MustFieldOf(shiftsTable, func(f *shift) *net.IP { return &f.Peer })
		shiftSlot = kandra.MustFieldOf(shiftsTable, func(f *shift) *slot { return &f.Slot })
		shiftSpot = kandra.MustFieldOf(shiftsTable, func(f *shift) *slot { return &f.Spot })
		diaryAt = kandra.MustFieldOf(diariesTable, func(d *diary) *time.Time { return &d.At })
		diaryMood = kandra.MustFieldOf(diariesTable, func(d *diary) *string { return &d.Mood })
		tallyTag = kandra.MustFieldOf(talliesTable, func(y *tally) *string { return &y.Tag })
		customPin = kandra.MustFieldOf(customersTable, func(c *customer) *geoPoint { return &c.Pin })
		embeddingCos = kandra.MustFieldOf(embeddingsTable, func(e *embedding) *[3]float32 { return &e.Cos })
		embeddingEuc = kandra.MustFieldOf(embeddingsTable, func(e *embedding) *[3]float32 { return &e.Euc })
		embeddingDot = kandra.MustFieldOf(embeddingsTable, func(e *embedding) **[3]float32 { return &e.Dot })
		docTitle = kandra.MustFieldOf(docsV2, func(d *docV2) *string { return &d.Title })
	})
}
