module github.com/kandra-go/kandra/driver/kgocqlv2

go 1.23

require (
	github.com/apache/cassandra-gocql-driver/v2 v2.1.2
	github.com/google/uuid v1.6.0
	github.com/kandra-go/kandra v0.1.0
	pgregory.net/rapid v1.3.0
)

require gopkg.in/inf.v0 v0.9.1 // indirect
