module demiurge.dev/plugins/coding

go 1.26

require (
	demiurge.dev/sdk v0.0.0
	demiurge.dev/shared v0.0.0
)

require (
	go.uber.org/goleak v1.3.0 // indirect
	golang.org/x/sys v0.40.0 // indirect
)

replace demiurge.dev/shared => ../../shared

replace demiurge.dev/sdk => ../../sdk
