%% fp_prio - what other work on a node sees while flameprof samples it.
%% A probe process at a given priority sleeps 1 ms again and again and
%% records how late it wakes (what a timer-driven high- or max-priority
%% process of the node sees); saturate/1 keeps every scheduler busy with
%% normal-priority work.
-module(fp_prio).
-export([saturate/1, probe/1, burn/1, report/1]).

saturate(N) -> [spawn(?MODULE, burn, [I]) || I <- lists:seq(1, N)], ok.

burn(X) -> burn(erlang:phash2({X, X})).

%% Starts a probe registered as Name at priority Prio.
probe(Prio) ->
    Name = list_to_atom("fp_probe_" ++ atom_to_list(Prio)),
    register(Name, spawn_opt(fun() -> loop([]) end, [{priority, Prio}])),
    ok.

loop(Acc) ->
    receive
        {report, From} -> From ! {lateness, Acc}, loop([])
    after 0 ->
        T0 = erlang:monotonic_time(microsecond),
        receive after 1 -> ok end,
        loop([erlang:monotonic_time(microsecond) - T0 - 1000 | Acc])
    end.

%% "p50 p99 max" of the wake-up lateness in microseconds since the last report.
report(Prio) ->
    Name = list_to_atom("fp_probe_" ++ atom_to_list(Prio)),
    Name ! {report, self()},
    receive {lateness, L} ->
        S = lists:sort(L), N = length(S),
        P = fun(Q) -> lists:nth(max(1, min(N, round(Q * N))), S) end,
        lists:flatten(io_lib:format("~b ~b ~b", [P(0.5), P(0.99), lists:last(S)]))
    after 5000 -> "n/a"
    end.
