---------------------------- MODULE raft_waypoints ----------------------------
(* Waypoints over raft.tla's variables (WaypointRL, --waypoints): each
   sequence is a tuple of predicates an execution should pass in order.
   Select one with --waypoints tests/etcdraft/raft_waypoints.tla:NAME. *)
EXTENDS raft

SomeoneDown == live # Servers
AllLive == live = Servers
SomeLeader == \E i \in Servers : role[i] = "leader"
SomeCommit == \E i \in Servers : commitIndex[i] >= 1
LeaderTerm2 == \E i \in Servers : role[i] = "leader" /\ currentTerm[i] >= 2
\* a leader whose log is shorter than a follower's (the follower holds
\* entries of an older term the leader never had)
LeaderBehindFollower == \E i, j \in Servers :
    role[i] = "leader" /\ LastIndex(i) < LastIndex(j)

\* a leader elected after two restarts
TwoRestarts == <<SomeoneDown, AllLive, SomeoneDown, AllLive, SomeLeader>>
\* after a restart, a leader, then a commit
RestartThenCommit == <<SomeoneDown, AllLive, SomeLeader, SomeCommit>>
\* a commit, then a leader of a later term (a second election)
CommitThenNewTerm == <<SomeCommit, LeaderTerm2>>
\* after a restart, a leader with a shorter log than a follower (rare in
\* 25 steps: the walk passed it once in 50,000 episodes; docs/benchmarks.md)
RestartLeaderBehind == <<SomeoneDown, AllLive, LeaderBehindFollower>>

Waypoints == CommitThenNewTerm
===============================================================================
