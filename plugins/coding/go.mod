module demiurge.dev/plugins/coding

go 1.26

require (
	demiurge.dev/sdk v0.0.0
	demiurge.dev/shared v0.0.0
	go.uber.org/goleak v1.3.0
	golang.org/x/sys v0.40.0
)

replace demiurge.dev/shared => ../../shared

replace demiurge.dev/sdk => ../../sdk
