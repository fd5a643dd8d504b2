module demiurge.dev/catalog

go 1.26
