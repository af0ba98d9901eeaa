module github.com/kandra-go/kandra/bench

go 1.23

replace github.com/kandra-go/kandra => ../

require (
	github.com/google/uuid v1.6.0
	github.com/jmoiron/sqlx v1.4.0
	github.com/kandra-go/kandra v0.0.0-00010101000000-000000000000
	gorm.io/gorm v1.31.2
)

require (
	github.com/jinzhu/inflection v1.0.0 // indirect
	github.com/jinzhu/now v1.1.5 // indirect
	golang.org/x/text v0.20.0 // indirect
)
