%% fp_req_wl - workloads of the `flameprof requests` tests.
%%   run(N): one request that calls tick/1 N times (a flood of tier calls).
%%   start_loop(): a registered process calling run(1) every millisecond;
%%   loop_count() tells how many it made.
%%   burst(Procs, FloodMs, CalmMs): Procs processes call run(1) as fast as
%%   they can for FloodMs milliseconds, then once a millisecond for CalmMs;
%%   returns how many calls of run/1 they made, all finished when it
%%   returns.
%%   cast_reqs(N): N calls of cast_req/1, 30 ms apart, each handing work
%%   to a helper that calls later/1 5 ms after cast_req/1 returned (a tier
%%   that runs after its request ended); returns N once the helper is done.
%%   nest(N): calls itself N times (entry calls inside a request).
-module(fp_req_wl).
-export([run/1, tick/1, start_loop/0, loop_count/0, loop/1]).
-export([burst/3, cast_reqs/1, cast_req/2, later/1, nest/1]).

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

burst(Procs, FloodMs, CalmMs) ->
    Self = self(),
    Flood = erlang:monotonic_time(millisecond) + FloodMs,
    Calm = Flood + CalmMs,
    Pids = [spawn_link(fun() -> Self ! {made, self(), burst_loop(Flood, 0, 0)} end)
            || _ <- lists:seq(1, Procs)],
    lists:sum([receive {made, P, N} -> N end || P <- Pids]) +
        lists:sum([receive {made, P, N} -> N end || P <- [spawn_link(fun() -> Self ! {made, self(), burst_loop(Calm, 1, 0)} end)
                                                          || _ <- Pids]]).

burst_loop(Until, Pause, N) ->
    case erlang:monotonic_time(millisecond) >= Until of
        true -> N;
        false -> run(1), timer:sleep(Pause), burst_loop(Until, Pause, N + 1)
    end.

cast_reqs(N) ->
    Helper = spawn_link(fun helper/0),
    [begin cast_req(Helper, I), timer:sleep(30) end || I <- lists:seq(1, N)],
    Helper ! {done, self()},
    receive done -> N after 5000 -> timeout end.

cast_req(Helper, I) ->
    Helper ! {work, I},
    ok.

helper() ->
    receive
        {work, I} -> timer:sleep(5), later(I), helper();
        {done, From} -> From ! done
    end.

later(I) -> I * 2.

nest(0) -> 0;
nest(N) -> 1 + nest(N - 1).
