module github.com/kandra-go/kandra/bench

go 1.23

require (
	github.com/apache/cassandra-gocql-driver/v2 v2.1.2
	github.com/google/uuid v1.6.0
	github.com/jmoiron/sqlx v1.4.0
	github.com/kandra-go/kandra v0.1.0
	gorm.io/gorm v1.31.2
)

require (
	github.com/golang/snappy v0.0.3 // indirect
	github.com/hailocab/go-hostpool v0.0.0-20160125115350-e80d13ce29ed // indirect
	gopkg.in/inf.v0 v0.9.1 // indirect
)

require (
	github.com/gocql/gocql v1.7.0
	github.com/jinzhu/inflection v1.0.0 // indirect
	github.com/jinzhu/now v1.1.5 // indirect
	github.com/kandra-go/kandra/driver/kgocql v0.1.0
	github.com/kandra-go/kandra/driver/kgocqlv2 v0.1.0
	golang.org/x/text v0.20.0 // indirect
)

