module demiurge.dev/host

go 1.26

require (
	demiurge.dev/catalog v0.0.0
	demiurge.dev/shared v0.0.0
)

replace demiurge.dev/shared => ../shared

replace demiurge.dev/catalog => ../catalog
