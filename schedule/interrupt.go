package schedule

// Interruptible is a System that can stop an execution early: Interrupt,
// called from another goroutine while Execute runs, makes Execute return
// soon (with the trace so far). The system is usable again afterwards.
// Systems that cannot be interrupted are abandoned when they hang (their
// goroutine is left behind) and replaced by a new instance.
type Interruptible interface {
	Interrupt()
}
