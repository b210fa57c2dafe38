// Package mapper turns the event traces of an adapter into the actions of
// a TLA+ model, one mapper per (adapter, model) pair. Mappers are pure
// functions of the trace: they evaluate no TLA+, and they import no
// adapter; what a mapper must know of the system (its size, its protocol
// options) comes in its parameters, e.g. EtcdraftParams.
package mapper
