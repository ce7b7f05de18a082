package tensor

// The IQ types' codebooks and sign tables are data of the format, written
// from the quants2 fixture's iq-tables.json (TestIQTables proves them
// against it).
//go:generate go run ./internal/iqgen -in ../../../shared/fixtures/quants2/iq-tables.json -go iqtables_gen.go
