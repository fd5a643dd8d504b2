package dispatch

// Dispatch coerces and validates every call's arguments (entry.Schema.Coerce),
// so every binary that dispatches compiles tool schemas: argcheck registers
// the compiler with the catalog. Without it Coerce refuses every call.
import _ "demiurge.dev/catalog/argcheck"
