%% fp_req_wl - workloads of the `flameprof requests` tests.
%%   run(N): one request that calls tick/1 N times (a flood of tier calls).
%%   start_loop(): a registered process calling run(1) every millisecond;
%%   loop_count() tells how many it made.
-module(fp_req_wl).
-export([run/1, tick/1, start_loop/0, loop_count/0, loop/1]).

run(N) -> run(N, 0).
run(0, Acc) -> Acc;
run(N, Acc) -> run(N - 1, Acc + tick(N)).

tick(N) -> N band 1.

start_loop() ->
    register(fp_req_loop, spawn(?MODULE, loop, [0])),
    ok.

loop(Count) ->
    receive
        {count, From} -> From ! {count, Count}, loop(Count)
    after 1 ->
            run(1),
            loop(Count + 1)
    end.

loop_count() ->
    fp_req_loop ! {count, self()},
    receive {count, N} -> N after 5000 -> timeout end.
