// Package packages installs, removes and lists provider packages: toolset
// plugins that are not built in but added to one agent core by the
// operator (`demiurge package install`), such as the web_search providers
// web_search_brave and web_search_tavily.
//
// A package is a .tar.gz archive holding package.json (its manifest) and
// one plugin binary. Installing verifies the archive's sha256 and the
// manifest's protocol version before anything of it runs, places the
// binary under the state directory, marks the core's tool slot
// (<slots.tools>/<slot>/package.json, agent/tools/web_search for the web
// search providers) so that one core holds one provider per slot, and records the package in the lock file
// STATE/packages/lock.json. At run time installed.ForCore hands the host
// the plugin directories of the active core's packages, and Bind wraps
// their adapters so that each declared host variable is bound to one call
// only.
package packages
