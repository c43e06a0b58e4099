// Package luauvm runs the Luau SDK's spec suite (sdk/luau/spec) in the
// real Luau VM, interpreted and with native code generation, and checks
// that what the SDK sent in those specs is what Gatehouse accepts.
//
// The toolchain is found through GATEHOUSE_TEST_LUAU, the folder that
// holds luau and luau-analyze; where it is unset the tests skip, and in
// CI (CI=true) they fail. The luau program reads no files, so the test
// copies the spec folder into a temporary one and writes beside it, in
// generated/, the modules the specs require: the SDK's sources as
// strings, the fixtures of a live test server, and the conformance
// vectors as JSON text.
package luauvm
