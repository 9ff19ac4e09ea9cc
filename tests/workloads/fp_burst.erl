%% fp_burst - periodic work for the sampling-jitter test: a registered
%% process that works for the first 3 ms of every 10 ms of the node's
%% clock (erlang:system_time/1, the clock samples are stamped with) and
%% waits in a receive for the rest: a 100 Hz burst.
-module(fp_burst).
-export([start/0, loop/0, duty/0]).

-define(PERIOD_US, 10000).
-define(BUSY_US, 3000).

start() ->
    persistent_term:put(fp_burst_busy, counters:new(1, [write_concurrency])),
    persistent_term:put(fp_burst_t0, erlang:monotonic_time(microsecond)),
    register(fp_burst, spawn(?MODULE, loop, [])),
    ok.

%% The share of the time since start/0 the burst really spun, in percent:
%% on a loaded machine it wakes late and spins less than its 30 %.
duty() ->
    Busy = counters:get(persistent_term:get(fp_burst_busy), 1),
    Busy * 100 div max(1, erlang:monotonic_time(microsecond) - persistent_term:get(fp_burst_t0)).

loop() ->
    Phase = erlang:system_time(microsecond) rem ?PERIOD_US,
    case Phase < ?BUSY_US of
        true ->
            T0 = erlang:monotonic_time(microsecond),
            spin(0),
            counters:add(persistent_term:get(fp_burst_busy), 1, erlang:monotonic_time(microsecond) - T0);
        false -> receive after (?PERIOD_US - Phase) div 1000 -> ok end
    end,
    loop().

%% work until the burst's 3 ms are over
spin(X) ->
    case erlang:system_time(microsecond) rem ?PERIOD_US < ?BUSY_US of
        true -> spin(erlang:phash2({X, X}));
        false -> X
    end.
