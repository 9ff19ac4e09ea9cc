%% fp_otp_probe - what the tests need to see release-dependent behaviour of
%% the agent on the node itself: which OTP features the node has, and how
%% often (and how) the agent reads other processes' dictionaries.
-module(fp_otp_probe).
-export([features/0, start_busy/0, watch_dict_reads/0, dict_reads/0]).

%% features() -> "dict_key=true label=false": {dictionary, Key} (OTP 26.2)
%% and proc_lib:set_label/1 (OTP 27), probed, not inferred from the release.
features() ->
    DictKey = try erlang:process_info(self(), {dictionary, x}) of _ -> true
              catch error:badarg -> false end,
    Label = erlang:function_exported(proc_lib, set_label, 1)
        orelse (code:ensure_loaded(proc_lib) =:= {module, proc_lib}
                andalso erlang:function_exported(proc_lib, set_label, 1)),
    lists:flatten(io_lib:format("dict_key=~p label=~p", [DictKey, Label])).

%% Four busy processes with a large dictionary (20,000 entries each, so a
%% whole copy would cost), one of them labelled where the node can.
start_busy() ->
    [spawn(fun() -> busy(I) end) || I <- lists:seq(1, 4)],
    ok.

busy(I) ->
    [put({k, K}, K) || K <- lseq(20000)],
    I =:= 1 andalso erlang:function_exported(proc_lib, set_label, 1)
        andalso apply(proc_lib, set_label, [fp_labelled_worker]),
    spin(I).

lseq(N) -> lists:seq(1, N).

spin(X) -> spin(erlang:phash2({X, X})).

%% watch_dict_reads(): from now on, every process_info(P, dictionary) and
%% process_info(P, {dictionary, K}) call made by a process spawned after
%% this call (the agent's) is counted, per kind, in a named table.
watch_dict_reads() ->
    Self = self(),
    Tracer = spawn(fun() ->
                           ets:new(fp_dict_reads, [named_table, public]),
                           ets:insert(fp_dict_reads, [{whole, 0}, {key, 0}, {pids, []}]),
                           Self ! ready,
                           count_loop()
                   end),
    receive ready -> ok end,
    MS = [{['_', dictionary], [], []}, {['_', {dictionary, '_'}], [], []}],
    erlang:trace_pattern({erlang, process_info, 2}, MS, [global]),
    erlang:trace(new_processes, true, [call, {tracer, Tracer}]),
    ok.

count_loop() ->
    receive
        {trace, _Caller, call, {erlang, process_info, [P, dictionary]}} ->
            ets:update_counter(fp_dict_reads, whole, 1),
            [{pids, L}] = ets:lookup(fp_dict_reads, pids),
            ets:insert(fp_dict_reads, {pids, [P | L]});
        {trace, _Caller, call, {erlang, process_info, [_, {dictionary, _}]}} ->
            ets:update_counter(fp_dict_reads, key, 1);
        _ -> ok
    end,
    count_loop().

%% dict_reads() -> "whole=W key=K max_per_pid=M"
dict_reads() ->
    [{whole, W}] = ets:lookup(fp_dict_reads, whole),
    [{key, K}] = ets:lookup(fp_dict_reads, key),
    [{pids, L}] = ets:lookup(fp_dict_reads, pids),
    Max = lists:max([0 | [length([Q || Q <- L, Q =:= P]) || P <- L]]),
    lists:flatten(io_lib:format("whole=~b key=~b max_per_pid=~b", [W, K, Max])).
