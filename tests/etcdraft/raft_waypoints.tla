---------------------------- MODULE raft_waypoints ----------------------------
(* Waypoints over raft.tla's variables (WaypointRL, --waypoints): each
   sequence is a tuple of predicates an execution should pass in order.
   Select one with --waypoints tests/etcdraft/raft_waypoints.tla:NAME. *)
EXTENDS raft

SomeoneDown == live # Servers
AllLive == live = Servers
SomeLeader == \E i \in Servers : role[i] = "leader"
SomeCommit == \E i \in Servers : commitIndex[i] >= 1
LeaderTerm3 == \E i \in Servers : role[i] = "leader" /\ currentTerm[i] >= 3
\* a leader whose log is shorter than a follower's (the follower holds
\* entries of an older term the leader never had)
LeaderBehindFollower == \E i, j \in Servers :
    role[i] = "leader" /\ LastIndex(i) < LastIndex(j)
\* a follower has committed further than the current leader knows
FollowerCommitAhead == \E i, j \in Servers :
    role[i] = "leader" /\ commitIndex[j] > commitIndex[i]

\* a leader elected after two restarts
TwoRestarts == <<SomeoneDown, AllLive, SomeoneDown, AllLive, SomeLeader>>
\* after a restart, a leader with a shorter log than a follower
RestartLeaderBehind == <<SomeoneDown, AllLive, LeaderBehindFollower>>
\* a commit, then a leader of term 3 that is behind a follower's commit
LateLeader == <<SomeCommit, LeaderTerm3, FollowerCommitAhead>>

Waypoints == RestartLeaderBehind
===============================================================================
