%% fp_bench - the workloads `make bench` profiles, and the probes it reads.
%%
%% Each workload runs in a node that bench/run.sh starts on loopback; the
%% script reads figures through erl_call (a hidden C-node, like flameprof).
%%   service    client processes calling a pool of gen_servers that do CPU
%%              work, ETS and binary handling; a counter of completed requests
%%   saturated  ~1000 CPU-bound processes with deep, varied stacks
%%   crowd      100,000 idle processes plus a few busy ones
%% Probes: snapshot/0 (requests done, monotonic time), the OTP profilers
%% eprof/fprof for context, and sel_trace_*: trace the running agent's
%% select/2 (call + return) and its scheduling (in/out) to get the wall and
%% the CPU time of each selection window.
-module(fp_bench).
-behaviour(gen_server).
-export([start_service/2, snapshot/0, start_saturated/1, start_crowd/2,
         eprof_start/0, eprof_stop/0, fprof_start/1, fprof_stop/0,
         sel_trace_start/1, sel_trace_result/0, nprocs/0]).
-export([init/1, handle_call/3, handle_cast/2, client/3, sat_loop/2, idle/0, burn/1]).

%% ---------------------------------------------------------------- service

start_service(NServers, NClients) ->
    C = counters:new(1, [write_concurrency]),
    persistent_term:put(fp_bench_counter, C),
    %% the table needs an owner that outlives the -eval that starts us
    Self = self(),
    spawn(fun() ->
                  T = ets:new(fp_bench_tab, [set, public, {write_concurrency, true},
                                             {read_concurrency, true}]),
                  Self ! {tab, T},
                  receive stop -> ok end
          end),
    Tab = receive {tab, T} -> T end,
    Servers = list_to_tuple([begin {ok, P} = gen_server:start(?MODULE, [Tab], []), P end
                             || _ <- lists:seq(1, NServers)]),
    [spawn(?MODULE, client, [Servers, C, I]) || I <- lists:seq(1, NClients)],
    ok.

snapshot() ->
    {counters:get(persistent_term:get(fp_bench_counter), 1),
     erlang:monotonic_time(microsecond)}.

client(Servers, C, I) ->
    S = element(1 + rand:uniform(tuple_size(Servers)) - 1, Servers),
    Key = rand:uniform(10000),
    Payload = <<I:32, Key:32, (binary:copy(<<"req">>, 8 + Key rem 24))/binary>>,
    {ok, _} = gen_server:call(S, {req, Key, Payload}, infinity),
    counters:add(C, 1, 1),
    client(Servers, C, I).

init([Tab]) -> {ok, Tab}.

handle_call({req, Key, Payload}, _From, Tab) ->
    Sum = checksum(Payload, 0),                          % CPU
    ets:insert(Tab, {Key, Payload, Sum}),                % ETS
    Prev = case ets:lookup(Tab, (Key * 7919) rem 10000 + 1) of
               [{_, P, _}] -> P;
               [] -> <<>>
           end,
    Parts = binary:split(<<Payload/binary, Prev/binary>>, <<"rq">>, [global]),
    Reply = term_to_binary({Key, Sum, length(Parts)}),   % binaries
    {reply, {ok, byte_size(Reply) + work(Key, 120)}, Tab}.

handle_cast(_, S) -> {noreply, S}.

checksum(<<B:8, Rest/binary>>, Acc) -> checksum(Rest, (Acc * 31 + B) band 16#ffffff);
checksum(<<>>, Acc) -> Acc.

work(X, 0) -> X;
work(X, N) -> work(erlang:phash2({X, N}), N - 1).

%% ---------------------------------------------------------------- saturated

%% N processes, each descending a different mix of three recursive
%% functions to a depth of 5..44, burning CPU at the bottom, coming back up
%% and going down again: deep stacks, a few hundred distinct ones.
start_saturated(N) ->
    [spawn(?MODULE, sat_loop, [I, 0]) || I <- lists:seq(1, N)],
    ok.

sat_loop(I, Round) ->
    Depth = 5 + (I * 7 + Round) rem 40,
    _ = level_a(Depth, I + Round),
    sat_loop(I, (Round + 1) rem 97).

level_a(0, X) -> burn(2000 + X rem 500);
level_a(N, X) when X rem 3 =:= 0 -> R = level_b(N - 1, X div 3), R + 1;
level_a(N, X) -> R = level_c(N - 1, X + 1), R + 1.

level_b(0, X) -> burn(1500 + X rem 700);
level_b(N, X) when X rem 2 =:= 0 -> R = level_a(N - 1, X div 2), R + 1;
level_b(N, X) -> R = level_c(N - 1, X * 5 + 1), R + 1.

level_c(0, X) -> burn(1000 + X rem 900);
level_c(N, X) -> R = level_a(N - 1, X + 7), R + 1.

burn(0) -> 0;
burn(N) -> _ = erlang:phash2({N, self()}), burn(N - 1).

%% ---------------------------------------------------------------- crowd

start_crowd(NIdle, NBusy) ->
    [spawn(?MODULE, idle, []) || _ <- lists:seq(1, NIdle)],
    [spawn(?MODULE, sat_loop, [I, 0]) || I <- lists:seq(1, NBusy)],
    ok.

idle() -> receive stop -> ok end.

nprocs() -> erlang:system_info(process_count).

%% ---------------------------------------------------------------- OTP profilers

eprof_start() ->
    {ok, _} = eprof:start(),
    eprof:start_profiling(erlang:processes()).

eprof_stop() ->
    eprof:stop_profiling(),
    eprof:stop().

fprof_start(File) ->
    fprof:trace([start, {procs, erlang:processes()}, {file, File}]).

fprof_stop() ->
    fprof:trace(stop),
    fprof:stop().

%% ---------------------------------------------------------------- the agent's selection

%% Traces the agent's selection with monotonic timestamps and keeps, per
%% selection window, {Wall, OnCpu} in microseconds, plus the time the agent
%% and its scanner spent on a scheduler in all. Agents with a scanner
%% process (the scan runs there, at normal priority): a window runs from the
%% scanner's receipt of {scan, ...} to its send of {scanned, ...}. Older
%% agents, which scan inside the agent: from the call of Mod:select/2 to
%% its return.
sel_trace_start(Mod) ->
    Registered = whereis(flameprof_agent),
    true = is_pid(Registered),
    %% The registered name is the agent's lock in newer agents (the
    %% coordinator is linked to it, the scanner to the coordinator), the
    %% coordinator itself in older ones: look two links deep.
    Near = links(Registered),
    Scanners = [P || P <- lists:usort(Near ++ lists:append([links(L) || L <- Near])),
                     erlang:process_info(P, initial_call) =:= {initial_call, {Mod, scanner, 2}}],
    Agent = case Scanners of
                [S | _] -> hd([L || L <- links(S)] ++ [Registered]);
                [] -> Registered
            end,
    Self = self(),
    T = spawn(fun() -> register(fp_bench_tracer, self()), Self ! ready,
                       tracer(#{calls => [], in => #{}, sel => undefined, selcpu => 0,
                                cpu => 0, t0 => erlang:monotonic_time(nanosecond)})
              end),
    receive ready -> ok end,
    case Scanners of
        [Scanner | _] ->
            erlang:trace(Scanner, true, ['receive', send, running, monotonic_timestamp, {tracer, T}]),
            erlang:trace(Agent, true, [running, monotonic_timestamp, {tracer, T}]),
            scanner;
        [] ->
            erlang:trace_pattern({Mod, select, 2}, [{'_', [], [{return_trace}]}], [local]),
            erlang:trace(Agent, true, [call, running, monotonic_timestamp, {tracer, T}]),
            select
    end.

links(P) ->
    case erlang:process_info(P, links) of
        {links, Ls} -> [L || L <- Ls, is_pid(L)];
        undefined -> []
    end.

sel_trace_result() ->
    fp_bench_tracer ! {result, self()},
    receive {fp_bench_result, R} -> R after 10000 -> timeout end.

tracer(S) ->
    receive
        {trace_ts, P, in, _, Ts} -> tracer(S#{in := maps:put(P, Ts, maps:get(in, S))});
        {trace_ts, P, out, _, Ts} ->
            #{in := In, cpu := Cpu, selcpu := SC, sel := Sel} = S,
            From = maps:get(P, In, undefined),
            tracer(S#{in := maps:remove(P, In), cpu := Cpu + span(From, Ts),
                      selcpu := SC + case Sel of {P, _} -> span(later(From, Sel), Ts); _ -> 0 end});
        {trace_ts, P, 'receive', Msg, Ts} when element(1, Msg) =:= scan -> start(P, Ts, S);
        {trace_ts, P, call, _, Ts} -> start(P, Ts, S);
        {trace_ts, P, send, Msg, _, Ts} when element(1, Msg) =:= scanned -> stop(P, Ts, S);
        {trace_ts, P, return_from, _, _, Ts} -> stop(P, Ts, S);
        {result, From} ->
            #{calls := Calls, cpu := Cpu, t0 := T0, in := In} = S,
            Now = erlang:monotonic_time(nanosecond),
            Open = lists:sum([span(I, Now) || I <- maps:values(In)]),
            From ! {fp_bench_result, {lists:reverse(Calls), (Cpu + Open) div 1000,
                                      (Now - T0) div 1000}},
            tracer(S);
        _ -> tracer(S)
    end.

start(P, Ts, S) -> tracer(S#{sel := {P, Ts}, selcpu := 0}).

stop(P, Ts, S) ->
    #{sel := Sel, selcpu := SC, in := In, calls := Calls} = S,
    case Sel of
        {P, T0} ->
            Cpu = SC + span(later(maps:get(P, In, undefined), Sel), Ts),
            tracer(S#{sel := undefined, calls := [{(Ts - T0) div 1000, Cpu div 1000} | Calls]});
        _ -> tracer(S)
    end.

%% On-CPU time from From (undefined: off CPU) to To, in nanoseconds.
span(undefined, _) -> 0;
span(From, To) -> max(0, To - From).

%% The later of an on-CPU start and a window start (undefined: off CPU).
later(undefined, _) -> undefined;
later(A, {_, B}) -> max(A, B);
later(A, B) when is_integer(B) -> max(A, B).
