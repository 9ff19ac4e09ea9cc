%% fp_tick - when does the agent's round really run, and what does it miss?
%% (doc/truth.md, "where it cannot": bursts that start on the timer tick)
%%
%% A copy of examples/elixir_shop/shop.exs in Erlang (four pricers, each
%% basket about 1 ms of work; a loader that calls them in turn and sleeps
%% 2 ms), NBusy spinners beside them, and a coordinator that does what the
%% agent's does each round (sampler/flameprof_agent.erl: high priority, a
%% round due at a random point of each 10.3 ms period, `receive after` in
%% whole ms, move/2's rule, then process_info(P, status) of each pricer).
%% The pricers stamp their own work with erlang:monotonic_time/1: that is
%% the instrument. Printed:
%%   duty       the part of the time each pricer works, by its own clock
%%   read       the part of the status reads that found a pricer running
%%   at_due     the part of (round, pricer) where the pricer worked at the
%%              instant the round was due (uniform: it should match duty)
%%   at_wake    the same at the instant the round really ran
%%   tick+30us, tick+300us, uniform: the same offline, from the pricers'
%%              clocks alone, at instants 30 or 300 us after each 1 ms
%%              boundary of monotonic time (ERTS's timer tick) or at
%%              uniform instants
%%   same_sched the rounds due while a pricer worked on the scheduler the
%%              round woke on: how many, their lateness, how many read a
%%              pricer running
%%
%%   erlc bench/fp_tick.erl && erl -noshell -eval 'fp_tick:run(6, 0), fp_tick:run(6, 2), halt().'
-module(fp_tick).
-export([run/2, pricer/1, loader/2, spin/0, coord/3]).

-define(PERIOD, 10309).                  % us, 97 rounds a second

run(Secs, NBusy) ->
    T = ets:new(fp_tick, [public, bag, {write_concurrency, true}]),
    Ps = [spawn(?MODULE, pricer, [T]) || _ <- lists:seq(1, 4)],
    L = spawn(?MODULE, loader, [Ps, 1]),
    Bs = [spawn(?MODULE, spin, []) || _ <- lists:seq(1, NBusy)],
    timer:sleep(500),
    C = spawn_opt(?MODULE, coord, [Ps, self(), now_us() + Secs * 1000000], [{priority, high}]),
    Rounds = receive {done, C, R} -> R end,
    [exit(P, kill) || P <- [L | Ps ++ Bs]],
    Work = lists:sort([{S, E, Sch} || {_, S, E, Sch} <- ets:tab2list(T)]),
    ets:delete(T),
    report(NBusy, Rounds, Work, length(Ps)).

now_us() -> erlang:monotonic_time(microsecond).

%% A basket priced, its work stamped {Pid, Start, End, Scheduler} (the
%% scheduler it started and ended on, or 0 where it moved).
pricer(T) ->
    receive
        {price, From, Basket} ->
            S = now_us(),
            Sch0 = erlang:system_info(scheduler_id),
            Total = lists:sum([line(Q, C) || {Q, C} <- Basket]),
            E = now_us(),
            Sch = case erlang:system_info(scheduler_id) of Sch0 -> Sch0; _ -> 0 end,
            ets:insert(T, {self(), S, E, Sch}),
            From ! {priced, Total},
            pricer(T)
    end.

line(Q, C) -> lists:foldl(fun(K, A) -> (A + C * K) rem 1000003 end, 0, lists:seq(1, Q * 3000)).

loader(Ps, N) ->
    Basket = [{(N + K) rem 5 + 1, 100 + K} || K <- lists:seq(1, 8)],
    lists:nth(N rem 4 + 1, Ps) ! {price, self(), Basket},
    receive {priced, _} -> ok end,
    timer:sleep(2),
    loader(Ps, N + 1).

spin() -> spin().

coord(Ps, Parent, End) ->
    Now = now_us(),
    round(Ps, Parent, End, Now, Now + rand:uniform(?PERIOD) - 1, []).

round(Ps, Parent, End, Slot, Due, Acc) ->
    wait(Due),
    Now = now_us(),
    Sch = erlang:system_info(scheduler_id),
    move(Sch),
    Sts = [element(2, process_info(P, status)) || P <- Ps],
    A = [{Due, Now, Sch, Sts} | Acc],
    Next = Slot + ?PERIOD,
    case Now > End of
        true -> Parent ! {done, self(), lists:reverse(A)};
        false -> round(Ps, Parent, End, Next, Next + rand:uniform(?PERIOD) - 1, A)
    end.

%% As the agent's loop/1: whole milliseconds, rounded up, until due.
wait(Due) ->
    case Due - now_us() of
        Left when Left > 0 -> receive after (Left + 999) div 1000 -> wait(Due) end;
        _ -> ok
    end.

%% As the agent's move/2, less its every-10-rounds move on a saturated node.
move(Here) ->
    N = erlang:system_info(schedulers_online),
    Active = lists:sublist(erlang:statistics(active_tasks), N),
    Idle = [K || {K, 0} <- lists:zip(lists:seq(1, N), Active)],
    case Here =< N andalso lists:nth(Here, Active) > 1 andalso Idle =/= [] of
        true -> process_flag(scheduler, lists:nth(rand:uniform(length(Idle)), Idle));
        false -> ok
    end.

report(NBusy, Rounds, Work, NP) ->
    N = length(Rounds) * NP,
    {T0, _, _} = hd(Work),
    T1 = lists:max([E || {_, E, _} <- Work]),
    Duty = lists:sum([E - S || {S, E, _} <- Work]) / (T1 - T0) / NP,
    Read = lists:sum([length([1 || St <- Sts, St =:= running orelse St =:= garbage_collecting])
                      || {_, _, _, Sts} <- Rounds]),
    AtDue = lists:sum([working(Due, Work) || {Due, _, _, _} <- Rounds]),
    AtWake = lists:sum([working(Now, Work) || {_, Now, _, _} <- Rounds]),
    Ticks = [T0 + 1000 - mod1000(T0) + K * 1000 || K <- lists:seq(0, (T1 - T0) div 1000 - 2)],
    Cover = fun(Xs) -> lists:sum([working(X, Work) || X <- Xs]) / (length(Xs) * NP) end,
    Same = [{Now - Due, Sts} || {Due, Now, Sch, Sts} <- Rounds,
                                [] =/= [1 || {S, E, PS} <- Work, S =< Due, Due < E, PS =:= Sch]],
    Lat = lists:sort([Now - Due || {Due, Now, _, _} <- Rounds]),
    LatIn = lists:sort([Now - Due || {Due, Now, _, _} <- Rounds, working(Due, Work) > 0]),
    LatOut = lists:sort([Now - Due || {Due, Now, _, _} <- Rounds, working(Due, Work) =:= 0]),
    io:format("busy=~p rounds=~p duty=~.3f read=~.3f at_due=~.3f at_wake=~.3f~n"
              "  tick+30us=~.3f tick+300us=~.3f uniform=~.3f~n"
              "  lateness us p50/p90/p99=~w; wake-ups within 100 us after a tick: ~p of ~p~n"
              "  lateness p50/p90 of the rounds due while a pricer worked ~w (~p rounds), while none did ~w~n"
              "  same_sched=~p (lateness p50/p90 ~w, a pricer read running in ~p)~n",
              [NBusy, length(Rounds), Duty, Read / N, AtDue / N, AtWake / N,
               Cover([X + 30 || X <- Ticks]), Cover([X + 300 || X <- Ticks]),
               Cover([T0 + rand:uniform(T1 - T0) || _ <- Ticks]),
               pct(Lat, [0.5, 0.9, 0.99]), length([1 || {_, Now, _, _} <- Rounds, mod1000(Now) < 100]),
               length(Rounds), pct(LatIn, [0.5, 0.9]), length(LatIn), pct(LatOut, [0.5, 0.9]), length(Same), pct(lists:sort([L || {L, _} <- Same]), [0.5, 0.9]),
               length([1 || {_, Sts} <- Same, lists:member(running, Sts)])]).

mod1000(T) -> (T rem 1000 + 1000) rem 1000.

%% How many pricers worked at instant X (Work sorted by start).
working(X, Work) -> length([1 || {S, E, _} <- Work, S =< X, X < E]).

pct([], _) -> [];
pct(L, Qs) -> [lists:nth(max(1, round(length(L) * Q)), L) || Q <- Qs].
