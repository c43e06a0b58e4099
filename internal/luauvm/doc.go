// Package luauvm holds the Luau SDK (sdk/luau) to its promises in the real
// Luau VM: it runs the SDK's spec suite (sdk/luau/spec) interpreted and
// with native code generation; checks that what the SDK sent in those
// specs is what Gatehouse accepts (replayed against a live server) and
// that the decisions its check made are Gatehouse's (asked of that
// server); runs luau-analyze --mode=strict on the SDK and StyLua on its
// files.
//
// The toolchain is found through GATEHOUSE_TEST_LUAU, the folder that
// holds luau and luau-analyze; where it is unset the tests skip, and in
// CI (CI=true) they fail. The luau program reads no files, so the test
// copies the spec folder into a temporary one and writes beside it, in
// generated/, the modules the specs require: the SDK's sources as
// strings, the fixtures of a live test server, the conformance vectors
// as JSON text, the docs' door script, and Gatehouse's own answers for
// the evaluator's specs.
package luauvm
