%% fp_hop - a process that waits in one function, and on 'hop' moves to
%% another and waits there (tests/e2e/cheap_samples.t): the least a waiting
%% process can do between two samples.
-module(fp_hop).
-export([start/0, wait_a/0, wait_b/0]).

start() ->
    P = spawn(?MODULE, wait_a, []),
    register(fp_hop, P),
    ok.

wait_a() -> receive hop -> wait_b() end.
wait_b() -> receive hop -> wait_a() end.
