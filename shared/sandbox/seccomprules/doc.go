// Package seccomprules holds the sandbox's seccomp policies as rules for
// go-seccomp-bpf and assembles them into the BPF programs the kernel
// loads. It is kept out of package sandbox because the library builds
// the system call tables of every architecture when a program starts
// (165 KB in 44 allocations; with the assembly, about 70 of the 670 page
// faults of a sandboxed start) and the helper starts for every sandboxed
// command: on amd64 the sandbox loads the programs assembled here ahead
// of time (../seccomp_table_linux_amd64.go, checked equal to Program's
// output by TestSeccompTableIsTheLibrarysProgram), elsewhere it calls
// Program.
package seccomprules
