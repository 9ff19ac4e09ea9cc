%% fp_calls_wl - a workload whose cost is known, for `flameprof calls`:
%% a function called exactly K times, one that stays on a scheduler for a
%% known time, one that allocates a known number of heap words.
-module(fp_calls_wl).
-export([hit/1, target/1, spin/2, spin_ms/1, alloc/2, alloc_list/1,
         timed_hit/1, hot_rate/2, hot_loop/1]).

%% Calls target/1 exactly K times (in the calling process), then returns K.
hit(K) -> hit(K, 0).
hit(0, _) -> ok;
hit(K, Acc) -> hit(K - 1, target(Acc)).

target(X) -> X + 1.

%% Calls spin_ms(Ms) N times: each call stays busy on a scheduler (no
%% sleep: call_time counts only the time scheduled in) for Ms milliseconds
%% of wall time, or longer when the machine holds its thread back at the
%% end. Returns the calls' wall time in microseconds, from outside them:
%% the most that call_time can count.
spin(N, Ms) ->
    lists:sum([begin
                   T0 = erlang:monotonic_time(microsecond),
                   spin_ms(Ms),
                   erlang:monotonic_time(microsecond) - T0
               end || _ <- lists:seq(1, N)]).

spin_ms(Ms) ->
    Until = erlang:monotonic_time(microsecond) + Ms * 1000,
    busy(Until).

busy(Until) ->
    case erlang:monotonic_time(microsecond) >= Until of
        true -> ok;
        false -> busy(Until)
    end.

%% Calls alloc_list(Len) N times: each builds a list of Len small integers,
%% Len cons cells of 2 words each, on the caller's heap.
alloc(N, Len) -> _ = [length(alloc_list(Len)) || _ <- lists:seq(1, N)], ok.

alloc_list(Len) -> cons(Len, []).

cons(0, Acc) -> Acc;
cons(N, Acc) -> cons(N - 1, [N | Acc]).

%% For the benchmark: microseconds that hit(N) takes in this process.
timed_hit(N) ->
    {Us, ok} = timer:tc(?MODULE, hit, [N]),
    Us.

%% For the benchmark: Procs processes call target/1 as fast as they can for
%% Ms milliseconds; returns the calls per second they made together.
hot_rate(Procs, Ms) ->
    Ref = counters:new(1, [write_concurrency]),
    Pids = [spawn(?MODULE, hot_loop, [Ref]) || _ <- lists:seq(1, Procs)],
    timer:sleep(Ms),
    N = counters:get(Ref, 1),
    [exit(P, kill) || P <- Pids],
    round(N * 1000 / Ms).

hot_loop(Ref) ->
    hit(1000),
    counters:add(Ref, 1, 1000),
    hot_loop(Ref).
