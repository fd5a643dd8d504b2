module demiurge.dev/sdk

go 1.26

require demiurge.dev/shared v0.0.0

replace demiurge.dev/shared => ../shared
