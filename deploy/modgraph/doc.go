// Package modgraph holds the tests that keep the services apart, on the
// whole workspace (go.work):
//
//   - a service's packages (their code and their tests) import libs, their
//     own module, and other services' client modules only
//     (<svc>/client, including its clienttest fake); a client module
//     imports libs only;
//   - no two modules require each other, directly or through others
//     (go.mod requirements form no cycle).
//
// deploy and bench wire or measure the whole product and may import any
// module; nothing imports them.
package modgraph
