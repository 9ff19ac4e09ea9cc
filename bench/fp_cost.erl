%% fp_cost - where a sample's node CPU goes, stage by stage (make bench,
%% part "stages"; doc/benchmarks.md, figure 6).
%%
%% Runs inside a plain node and repeats, in one process, each step the
%% agent (sampler/flameprof_agent.erl) takes for one sample of a process
%% whose stack is Depth frames deep, timing many repetitions of each with
%% the monotonic clock: on a scheduler of its own a tight loop's wall time
%% is its CPU time. The steps are copied from the agent (the item lists,
%% the message shapes; the hash is the agent's own, sampler/fp_stack.hrl);
%% keep them in step with it.
%%
%% Two cases for the process_info signal: the target waiting in receive
%% (the caller reads it directly) and the target runnable on the same
%% single scheduler (+S 1: it handles the signal itself when it is next
%% scheduled, and the round trip's two context switches are paid too).
-module(fp_cost).
-export([run/1, main/1, start_paced/3, start_paced/4, paced/3, paced/4]).

-define(CHEAP_ITEMS, [reductions, status, message_queue_len, sequential_trace_token]).
-define(ITEMS, [current_function, current_stacktrace, status, reductions,
                message_queue_len, memory, total_heap_size,
                garbage_collection, garbage_collection_info,
                sequential_trace_token]).
-define(LEAN_ITEMS, [current_stacktrace, status, reductions, message_queue_len,
                     memory, total_heap_size, garbage_collection_info,
                     sequential_trace_token]).

main([N]) -> run(list_to_integer(atom_to_list(N))).

%% Depth: frames of the target's stack. Prints one line per stage:
%% "stage <name> <us per op, median of 7 runs> <min> <max>".
run(Depth) ->
    _ = erlang:system_flag(backtrace_depth, 64),
    Waiting = spawn(fun() -> descend(Depth, wait) end),
    Busy = spawn(fun() -> descend(Depth, spin) end),
    timer:sleep(200),
    {current_stacktrace, ST} = erlang:process_info(Waiting, current_stacktrace),
    {current_function, CF} = erlang:process_info(Waiting, current_function),
    Stack = stack(CF, ST),
    Frames = frames(Stack),
    Hash = stack_hash(Frames),
    Tab = ets:new(t, [set, protected, {read_concurrency, true}]),
    ets:insert(Tab, {{s, Hash}, 17}),
    Metrics = list_to_tuple(lists:seq(1000, 1015)),
    Sample = {1763840000000000, 12, 0, 17, 0, Metrics},
    Batch = {fp_batch, 1, {1, 2, 3, 4, 5, 6, 7, 8, 9}, [], lists:duplicate(100, Sample)},
    Peer = spawn(fun echo/0),
    Stages =
        [{cheap_items_waiting, 20000, fun() -> erlang:process_info(Waiting, ?CHEAP_ITEMS) end},
         {full_items_waiting, 5000, fun() -> erlang:process_info(Waiting, ?ITEMS) end},
         {stacktrace_only_waiting, 5000, fun() -> erlang:process_info(Waiting, current_stacktrace) end},
         {gc_info_only_waiting, 20000, fun() -> erlang:process_info(Waiting, garbage_collection_info) end},
         {lean_items_waiting, 5000, fun() -> erlang:process_info(Waiting, ?LEAN_ITEMS) end},
         {cheap_items_runnable, 2000, fun() -> erlang:process_info(Busy, ?CHEAP_ITEMS) end},
         {full_items_runnable, 2000, fun() -> erlang:process_info(Busy, ?ITEMS) end},
         {stack_hash_whole_stack, 5000, fun() -> old_stack_hash(stack(CF, ST)) end},
         {stack_hash_frames, 5000, fun() -> stack_hash(frames(stack(CF, ST))) end},
         {stack_same_as_last, 5000, fun() -> frames(stack(CF, ST)) =:= Frames end},
         {stack_ref_lookup, 50000, fun() -> ets:lookup_element(Tab, {s, Hash}, 2) end},
         {sample_round_trip, 20000,
          fun() -> Peer ! {sample, self(), 1, Metrics}, receive {sampled, _, _, _} -> ok end end},
         {batch_encode_per_sample, 500, fun() -> term_to_binary(Batch) end}],
    [report(Name, N, F) || {Name, N, F} <- Stages],
    exit(Waiting, kill), exit(Busy, kill), exit(Peer, kill),
    ok.

report(batch_encode_per_sample = Name, N, F) -> report1(Name, N, F, 100);
report(Name, N, F) -> report1(Name, N, F, 1).

report1(Name, N, F, PerOp) ->
    Runs = lists:sort([time_us(N, F) / (N * PerOp) || _ <- lists:seq(1, 7)]),
    io:format("stage ~s ~.3f ~.3f ~.3f~n",
              [Name, lists:nth(4, Runs), hd(Runs), lists:last(Runs)]).

time_us(N, F) ->
    T0 = erlang:monotonic_time(nanosecond),
    loop(N, F),
    (erlang:monotonic_time(nanosecond) - T0) / 1000.

loop(0, _) -> ok;
loop(N, F) -> F(), loop(N - 1, F).

echo() ->
    receive
        {sample, From, R, M} -> From ! {sampled, self(), R, M}, echo()
    end.

%% The paced workload (bench/cost.sh): N processes, each Depth frames deep,
%% doing BurnUs of work every 10 ms: every process gains reductions between
%% two samples (so every sample is a full one), and the node is far from
%% saturated, so what the profiler adds shows as node CPU time rather than
%% as lost throughput.
start_paced(N, Depth, BurnUs) -> start_paced(N, Depth, BurnUs, 10).

%% The same, each process working every PeriodMs: with 1000, a process
%% runs once a second, so at 97 Hz nearly every sample finds it as it was
%% at the last one (a cheap sample, no signal).
start_paced(N, Depth, BurnUs, PeriodMs) ->
    Loops = max(1, round(BurnUs * loops_per_us())),
    [spawn(?MODULE, paced, [Depth, Loops, PeriodMs, I]) || I <- lists:seq(1, N)],
    ok.

paced(Depth, BurnUs, I) -> paced(Depth, max(1, round(BurnUs * loops_per_us())), 10, I).

paced(Depth, Loops, PeriodMs, I) ->
    %% spread over the period, so the node's work does not come in bursts
    receive after I * 7919 rem PeriodMs -> ok end,
    descend(Depth, {pace, Loops, PeriodMs}).

%% The work is a fixed number of loops, not a fixed wall time: on a shared
%% machine a process preempted by the OS would otherwise burn less CPU
%% while profiled (the node gets less of the machine), and the difference
%% read as the profiler's cost came out negative.
pace(Loops, PeriodMs) ->
    count(Loops),
    receive after PeriodMs -> pace(Loops, PeriodMs) end.

count(0) -> ok;
count(K) -> count(K - 1).

%% Loops of count/1 per microsecond on this machine, the best of 5 tries.
loops_per_us() ->
    K = 1000000,
    Best = lists:min([begin
                          T0 = erlang:monotonic_time(nanosecond),
                          count(K),
                          erlang:monotonic_time(nanosecond) - T0
                      end || _ <- lists:seq(1, 5)]),
    K * 1000 / max(1, Best).

%% A stack like a real service's: modules with file and line locations,
%% Depth frames of a few functions.
descend(0, wait) -> receive never -> ok end;
descend(0, spin) -> spin(0);
descend(0, {pace, Loops, PeriodMs}) -> pace(Loops, PeriodMs);
descend(N, How) ->
    case N rem 3 of
        0 -> a(N, How);
        1 -> b(N, How);
        _ -> c(N, How)
    end.

a(N, How) -> R = descend(N - 1, How), [R].
b(N, How) -> R = descend(N - 1, How), {R}.
c(N, How) -> R = descend(N - 1, How), R + 0.

spin(N) -> spin(N + 1).

%% As the agent does.
stack({M, F, A}, [{M, F, A, _} | _] = ST) -> ST;
stack({M, F, A}, ST) -> [{M, F, A, []} | ST];
stack(_, ST) -> ST.

%% frames/1 and stack_hash/1: the agent's own
-include("../sampler/fp_stack.hrl").

%% The agent before the cut (0.1.0): both hashes over the whole stack,
%% file names included.
old_stack_hash(Stack) ->
    {erlang:phash2(Stack, 1 bsl 32), erlang:phash2({Stack}, 1 bsl 32)}.
