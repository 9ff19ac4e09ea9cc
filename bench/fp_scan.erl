%% fp_scan - the agent's selection scan on a node of many processes.
%%
%%   erl +P 2000000 -noshell -pa DIR -eval 'fp_scan:main(1000000), halt().'
%%
%% DIR holds this module and flameprof_agent compiled from
%% sampler/flameprof_agent.erl. Spawns N hibernated processes (the
%% smallest a process gets, about 0.5 KB each) and 4 that work a little
%% every 10 ms (so that the scan finds something), then times
%% the scan of a window (the second one: the first fills the dictionary of
%% previous reductions) in a fresh process at normal priority, twice each:
%%
%%   agent     flameprof_agent:scan/4, as the agent runs it
%%   list      the scan before issue 20: a list of all pids, one tuple per
%%             process, sorted after a filter
%%
%% For each: CPU time of the node (statistics(runtime): the node is idle
%% but for the scan, so this is the scan's) and wall time in ms, and the scanning process's memory right
%% after the scan (heap with its garbage, and the dictionary; the agent's
%% ETS table apart), in MB.
-module(fp_scan).
-export([main/1]).

main(N) ->
    Busy = [spawn(fun spin/0) || _ <- lists:seq(1, 4)],
    spawn_idle(N),
    io:format("OTP ~s, ~b processes, iterator: ~p~n",
              [erlang:system_info(otp_release), erlang:system_info(process_count),
               erlang:function_exported(erlang, processes_next, 1)]),
    [measure(Name, Fun) || _ <- [1, 2], {Name, Fun} <- variants()],
    [exit(P, kill) || P <- Busy],
    ok.

variants() ->
    [{agent, fun() ->
                     Tab = case get(tab) of undefined -> ets:new(t, [set, private]); T -> T end,
                     put(tab, Tab),
                     flameprof_agent:scan(Tab, 1, #{}, #{}, 0, 10)
             end},
     {list, fun list_scan/0}].

spawn_idle(0) -> ok;
spawn_idle(N) -> spawn(fun() -> erlang:hibernate(?MODULE, main, [0]) end), spawn_idle(N - 1).

spin() ->
    _ = lists:foldl(fun(X, A) -> erlang:phash2({X, A}) end, 0, lists:seq(1, 200)),
    receive after 10 -> spin() end.

measure(Name, Fun) ->
    Me = self(),
    spawn(fun() ->
                  _ = Fun(),
                  erlang:garbage_collect(),
                  {_, _} = erlang:statistics(runtime),
                  T0 = erlang:monotonic_time(microsecond),
                  Top = Fun(),
                  Wall = erlang:monotonic_time(microsecond) - T0,
                  {_, Cpu} = erlang:statistics(runtime),
                  {memory, Mem} = erlang:process_info(self(), memory),
                  Tab = case get(tab) of undefined -> 0; T -> ets:info(T, memory) * erlang:system_info(wordsize) end,
                  Me ! {done, Name, Cpu, Wall div 1000, Mem / 1048576, Tab / 1048576, length(Top)}
          end),
    receive
        {done, Name, Cpu, Wall, Mem, Tab, Top} ->
            io:format("~-6s cpu ~5b ms  wall ~5b ms  process ~6.1f MB  table ~6.1f MB  (top ~b)~n",
                      [Name, Cpu, Wall, Mem, Tab, Top])
    end.

%% The scan as it was: every pid in a list, a tuple per process, then the
%% busy ones sorted (the dictionary as the agent keeps it).
list_scan() ->
    Self = self(),
    Gains = [{R - prev(P, R), P, R}
             || P <- erlang:processes(), P =/= Self,
                {reductions, R} <- [erlang:process_info(P, reductions)]],
    Busy = lists:reverse(lists:sort([G || {Gain, _, _} = G <- Gains, Gain > 0])),
    [P || {_, P, _} <- lists:sublist(Busy, 10)].

prev(P, R) ->
    case put(P, R) of
        undefined -> 0;
        Old -> Old
    end.
