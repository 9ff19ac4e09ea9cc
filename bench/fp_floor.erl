%% fp_floor - what the VM itself charges for the reads a sample needs, with
%% no flameprof: the floor under issue 23's goals (bench/floor.sh).
%%
%% 100 targets wait in a receive 25 frames deep. A coordinator at max
%% priority runs 97 rounds a second, each reading all 100 targets, in one
%% of these ways (MODE):
%%   round    reductions alone, read by the coordinator: no signal; what
%%            is left is the round's own wake-up, shared by 100 reads
%%   cheap    the agent's cheap items (reductions, status, queue length,
%%            seq_trace token), read by the coordinator
%%   direct   the agent's 10 full items, read by the coordinator (a
%%            signal each target handles)
%%   stack    only the stack (current_function, current_stacktrace), read
%%            the same way: what the signal and the stack cost alone
%%   nogc     the full items but the two garbage collection lists, the
%%            same way
%%   worker   the same through one worker per target and a reply (the
%%            agent's shape: the workers let slow targets answer in
%%            parallel)
%%   table    the same through the workers, who leave the result in a
%%            public ETS table for the next round instead of replying
%% The node's CPU time (utime + stime of this OS process) over SECS seconds
%% of rounds, minus an idle window of the same length before it, over the
%% reads made: microseconds of node CPU per read. Also the schedulers'
%% busy-wait ("other" in microstate accounting, ms per second), which is
%% where a round's wake-up goes.
-module(fp_floor).
-export([main/1, target/1]).

-define(FULL, [current_function, current_stacktrace, status, reductions, message_queue_len,
               memory, total_heap_size, garbage_collection, garbage_collection_info,
               sequential_trace_token]).
-define(STACK, [current_function, current_stacktrace]).
-define(NOGC, [current_function, current_stacktrace, status, reductions, message_queue_len,
               memory, total_heap_size, sequential_trace_token]).
-define(CHEAP, [reductions, status, message_queue_len, sequential_trace_token]).
-define(TARGETS, 100).
-define(HZ, 97).

%% erl -noshell -run fp_floor main MODE SECS: prints one line and halts.
main([ModeS, SecsS]) ->
    Mode = list_to_existing_atom(ModeS),
    Secs = list_to_integer(SecsS),
    %% as the agent does (--depth 64): else a stack is cut at 8 frames
    erlang:system_flag(backtrace_depth, 64),
    Ts = [spawn(?MODULE, target, [25]) || _ <- lists:seq(1, ?TARGETS)],
    timer:sleep(500),
    {Idle, 0} = cpu_per_s(fun() -> timer:sleep(Secs * 1000), 0 end),
    erlang:system_flag(microstate_accounting, reset),
    erlang:system_flag(microstate_accounting, true),
    {Busy, Reads} = cpu_per_s(fun() -> coordinator(Mode, Ts, Secs) end),
    Spin = busy_wait_ms_per_s(erlang:statistics(microstate_accounting), Secs),
    erlang:system_flag(microstate_accounting, false),
    io:format("~s ~.2f us/read (~b reads; node CPU ~.4f s/s idle, ~.4f with; "
              "busy-wait ~.1f ms/s)~n",
              [Mode, (Busy - Idle) * Secs * 1.0e6 / max(1, Reads), Reads, Idle, Busy, Spin]),
    halt().

target(0) -> receive stop -> 0 end;
target(D) -> 1 + target(D - 1).

cpu_per_s(F) ->
    C0 = os_cpu_s(), W0 = erlang:monotonic_time(microsecond),
    N = F(),
    C1 = os_cpu_s(), W1 = erlang:monotonic_time(microsecond),
    {(C1 - C0) * 1.0e6 / (W1 - W0), N}.

%% utime + stime of this OS process, in seconds (clock ticks of 1/100 s)
os_cpu_s() ->
    {ok, Stat} = file:read_file("/proc/" ++ os:getpid() ++ "/stat"),
    [_, Rest] = binary:split(Stat, <<") ">>),
    Fields = binary:split(Rest, <<" ">>, [global]),
    (binary_to_integer(lists:nth(12, Fields)) + binary_to_integer(lists:nth(13, Fields))) / 100.

busy_wait_ms_per_s(Threads, Secs) ->
    Ticks = lists:sum([maps:get(other, C, 0) || #{type := scheduler, counters := C} <- Threads]),
    erlang:convert_time_unit(Ticks, perf_counter, microsecond) / 1000 / Secs.

coordinator(Mode, Ts, Secs) ->
    process_flag(priority, max),
    Self = self(),
    Tab = ets:new(fp_floor, [public, {write_concurrency, true}]),
    Ws = [spawn_opt(fun() -> worker(Mode, Self, T, Tab) end, [link, {priority, max}]) || T <- Ts],
    Period = 1000000 div ?HZ,
    Start = erlang:monotonic_time(microsecond),
    N = rounds(Mode, Ts, Ws, Tab, Start, Start + Secs * 1000000, Period, 0, 0),
    [begin unlink(W), exit(W, kill) end || W <- Ws],
    N.

rounds(_Mode, _Ts, _Ws, _Tab, Next, End, _Period, _R, N) when Next >= End -> N;
rounds(Mode, Ts, Ws, Tab, Next, End, Period, R, N) ->
    case Next - erlang:monotonic_time(microsecond) of
        Wait when Wait > 0 -> receive after (Wait + 999) div 1000 -> ok end;
        _ -> ok
    end,
    Reads = case Mode of
                round -> length([erlang:process_info(T, reductions) || T <- Ts]);
                cheap -> length([erlang:process_info(T, ?CHEAP) || T <- Ts]);
                direct -> length([erlang:process_info(T, ?FULL) || T <- Ts]);
                stack -> length([erlang:process_info(T, ?STACK) || T <- Ts]);
                nogc -> length([erlang:process_info(T, ?NOGC) || T <- Ts]);
                worker -> [W ! {read, R} || W <- Ws], replies(R, length(Ws), Next + Period, 0);
                table -> Done = ets:select_delete(Tab, [{'_', [], [true]}]),
                         [W ! {read, R} || W <- Ws],
                         Done
            end,
    rounds(Mode, Ts, Ws, Tab, Next + Period, End, Period, R + 1, N + Reads).

replies(_R, 0, _Deadline, N) -> N;
replies(R, Left, Deadline, N) ->
    Wait = max(0, (Deadline - erlang:monotonic_time(microsecond) + 999) div 1000),
    receive {done, R, _} -> replies(R, Left - 1, Deadline, N + 1)
    after Wait -> N
    end.

worker(Mode, Coordinator, T, Tab) ->
    receive
        {read, R} ->
            Info = erlang:process_info(T, ?FULL),
            case Mode of
                worker -> Coordinator ! {done, R, Info};
                table -> ets:insert(Tab, {self(), Info})
            end,
            worker(Mode, Coordinator, T, Tab)
    end.
