---- MODULE Commit ----
\* A small commit protocol of our own: the golden spec of the trace labels,
\* the coverage report, ALIAS and JSON traces of `modelfuzz tlc check`.
EXTENDS Naturals
CONSTANTS RM
VARIABLES rmState, tmState, msgs

vars == <<rmState, tmState, msgs>>

Init ==
  /\ rmState = [r \in RM |-> "working"]
  /\ tmState = "init"
  /\ msgs = {}

Prepare(r) ==
  /\ rmState[r] = "working"
  /\ rmState' = [rmState EXCEPT ![r] = "prepared"]
  /\ msgs' = msgs \cup {[type |-> "prepared", rm |-> r]}
  /\ UNCHANGED tmState

Decide ==
  /\ tmState = "init"
  /\ \A r \in RM : [type |-> "prepared", rm |-> r] \in msgs
  /\ tmState' = "done"
  /\ UNCHANGED <<rmState, msgs>>

Abort(r) ==
  \/ /\ rmState[r] = "working"
     /\ rmState' = [rmState EXCEPT ![r] = "aborted"]
     /\ UNCHANGED <<tmState, msgs>>
  \/ /\ rmState[r] = "prepared"
     /\ tmState = "init"
     /\ rmState' = [rmState EXCEPT ![r] = "aborted"]
     /\ UNCHANGED <<tmState, msgs>>

Next == Decide \/ \E r \in RM : Prepare(r) \/ Abort(r)

Spec == Init /\ [][Next]_vars

NotDone == tmState /= "done"

NoneAborted == \A r \in RM : rmState[r] /= "aborted"

Prepared == {r \in RM : rmState[r] = "prepared"}

View == <<tmState, rmState>>

Progress == Prepared

Alias == [state |-> rmState, decided |-> tmState = "done", prepared |-> Prepared,
          nextPrepared |-> Prepared']
====
