package shellguard

// Shell builtins that change what later commands of the same shell see:
// variables, options, aliases, functions, the directory stack, traps,
// limits and the command hash. Each needs approval, however it is reached
// (directly, through builtin or command). declare, typeset, local, export,
// readonly and let are parsed as their own clauses (stmt.go) when written
// directly; these entries catch them behind builtin or command. printf -v
// is refused by printf's option table; cd, pushd and popd by checkCd;
// eval, source, ., exec and trap by their wrappers.
var stateBuiltins = map[string]string{
	"read":      "reads input into shell variables",
	"mapfile":   "reads input into a shell array",
	"readarray": "reads input into a shell array",
	"getopts":   "sets shell variables (OPTARG, OPTIND)",
	"declare":   "declares shell variables",
	"typeset":   "declares shell variables",
	"local":     "declares shell variables",
	"export":    "exports shell variables to later commands",
	"readonly":  "declares shell variables",
	"let":       "evaluates arithmetic that assigns shell variables",
	"unset":     "removes shell variables or functions",
	"set":       "changes shell options or positional parameters",
	"shopt":     "changes shell options",
	"alias":     "defines an alias, which changes what later commands run",
	"unalias":   "removes aliases",
	"hash":      "changes where the shell finds commands",
	"enable":    "enables or disables shell builtins, or loads new ones",
	"umask":     "changes the mode of files created later",
	"ulimit":    "changes the shell's resource limits",
	"wait":      "waits for background jobs",
	"bind":      "changes key bindings or runs commands on keys",
	"complete":  "defines completions, which can run commands",
	"compgen":   "can run commands and functions to generate completions",
	"compopt":   "changes completion options",
	"fc":        "runs commands from the history",
	"history":   "changes or writes the shell history",
	"shift":     "changes the positional parameters",
	"dirs":      "changes the directory stack",
	"disown":    "changes the shell's jobs",
	"fg":        "changes the shell's jobs",
	"bg":        "changes the shell's jobs",
	"jobs":      "reports and can run commands on the shell's jobs",
	"suspend":   "suspends the shell",
	"logout":    "ends the shell",
	"exit":      "ends the shell",
	"return":    "changes the shell's control flow",
	"break":     "changes the shell's control flow",
	"continue":  "changes the shell's control flow",
	"caller":    "reads the shell's call stack",
	"times":     "reads the shell's times",
	"help":      "is a shell builtin the guard does not review",
	"coproc":    "runs a coprocess",
}

// shellChange starts the reason of everything that changes the shell for
// the commands after it.
const shellChange = "changes the shell for later commands: "

func init() {
	for name, why := range stateBuiltins {
		knownPrompts[name] = shellChange + why
	}
}
