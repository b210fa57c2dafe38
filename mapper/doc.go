// Package mapper turns the event traces of an adapter into the actions of
// a TLA+ model, one mapper per (adapter, model) pair. Mappers are pure
// functions of the trace: they evaluate no TLA+.
package mapper
