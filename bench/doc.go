// Package bench compares kandra with the libraries Go users would pick
// instead (sqlx's reflectx driven the way gocqlx drives it, GORM's schema
// parser, plain reflect and hand-written code) on the same 12-field entity.
// It holds only benchmarks; see bench/README.md for the figures, the method and the commands.
package bench
