%% flameprof_tracer - the in-node half of `flameprof calls`.
%%
%% Loaded like the sampling agent (code:load_binary/3 under a versioned
%% module name). It sets the VM's call_count, call_time or call_memory
%% breakpoints (erlang:trace_pattern/3) on exactly the functions the user
%% named, and for time and memory the `call` and `silent` flags on the
%% processes named (`silent`, as OTP's tprof does: the flag must not make
%% anyone else's call trace patterns send messages). At stop it pauses the
%% breakpoints, reads them (erlang:trace_info/2), sends the rows and removes
%% everything it set.
%%
%% Where it sets them: from OTP 27 in a trace session of its own
%% (trace:session_create/3), so the application's tracing (dbg, tprof,
%% its own, in the node's global session or in sessions of theirs) and ours
%% neither see nor touch each other, and destroying the session removes
%% everything of ours at once. OTP 25 and 26 have no sessions: there
%% everything goes into the node's one global session, so a function or a
%% process somebody else traces is refused rather than shared (see
%% tr_open/1). The session is destroyed however the tracer ends: by the
%% session process at its end, by the guardian after it (which holds the
%% handle too), and by OTP itself once no process holds the handle (both
%% killed).
%%
%% Two processes. The guardian adopts the lock flameprof_tracer: one
%% tracing session per node at a time, shared with other tracing modes of
%% flameprof. The C-node registers it before any code is touched, as a bare
%% process that runs no code of ours (node/lock.c); the guardian links to
%% it, cancels its timer and kills it after its cleanup. It is told
%% what the session is about to set before it is set, and if the session
%% process dies (or the lock does) it removes those patterns and flags
%% itself; the lock is ended only after that. The session process monitors
%% flameprof's node and cleans up on nodedown. Whoever finishes last
%% deletes the module.
%%
%% Messages to the sink (the C-node's pid); calls/calls_decode.c reads them:
%%   {fp_calls_started, Proto, Session, NFunctions, NProcs}
%%   {fp_calls_error, Proto, Reason, Detail}          (Detail: a binary)
%%     Reason: lock_lost | unsupported | nomatch | too_many | in_use | noproc,
%%     or died (the session process died; the guardian cleaned up)
%%   {fp_calls_result, Proto, Type, Rows, Reloaded, {ElapsedUs, RowsLeftOut, Why}}
%%     Rows = [{Module, Function, Arity, Pid, Name, Calls, Measure}]
%%       Module, Function, Pid, Name: binaries (Pid and Name <<>> for
%%       totals; Name: registered name, else proc_lib label or initial call);
%%       Measure: microseconds (call_time), words (call_memory), 0 (count)
%%     Reloaded = [Module]: modules loaded again during the run
%%     Why = stopped (asked) | {overload, RunQueue, Limit}: ended early by
%%     itself, the node's run queues past the limit (then unasked)
%% From the sink: stop.
-module(flameprof_tracer).

-define(PROTO, 1).
-define(TICK_MS, 500).
-define(MAX_ROWS, 200000).
-define(SWEEP_DELAY_MS, 100).
-define(ERROR_TAG, fp_calls_error).
%% init/1 and session/2 exported, the watchdog (on_load), the guardian,
%% tr_open/1 and the rest of where patterns and flags go
-include("fp_trace_common.hrl").

%% The session's state while the breakpoints count.
-record(run, {guardian, sink, opts, set, stamps, reloaded = [], start,
              runq_limit,      % 0: no limit
              over = 0}).      % consecutive ticks above the limit

%% ---------------------------------------------------------------- start

guard_set(Opts) ->
    #{type => maps:get(type, Opts), mfas => [], procs => none, tr => global}.

guard_setting({setting, mfas, MFAs}, Set) -> Set#{mfas := MFAs ++ maps:get(mfas, Set)};
guard_setting({setting, procs, Procs}, Set) -> Set#{procs := Procs};
guard_setting({setting, tr, Tr}, Set) -> Set#{tr := Tr};
guard_setting(_, Set) -> Set.

guard_died(Set, Session) ->
    cleanup(Set, Session).

%% In a session of our own the session's end took every flag with it
%% (destroyed again here: a no-op after the session process did).
sweep(#{tr := {session, _}} = Set, _) -> tr_close(maps:get(tr, Set));
sweep(#{procs := none}, _) -> ok;
sweep(#{procs := Procs, tr := Tr}, Session) ->
    receive after ?SWEEP_DELAY_MS -> ok end,
    clear_flags(Tr, Procs, Session).

%% ---------------------------------------------------------------- session

session(Guardian, #{sink := Sink} = Opts) ->
    process_flag(trap_exit, true),
    %% its checks must run when the node is busy: that is when they matter
    process_flag(priority, high),
    erlang:monitor_node(node(Sink), true),
    Type = maps:get(type, Opts),
    Tr = tr_open(flameprof_calls),
    %% the guardian holds the session too: it destroys it if we die
    Guardian ! {setting, tr, Tr},
    case setup(Guardian, Type, Opts, Tr) of
        {ok, MFAs, Procs, NProcs} ->
            Sink ! {fp_calls_started, ?PROTO, self(), length(MFAs), NProcs},
            Set = #{type => Type, mfas => MFAs, procs => Procs, tr => Tr},
            %% the limit grows with a node that is busy already: four
            %% times its run queues at the start
            Base = erlang:statistics(total_run_queue_lengths),
            Limit = case maps:get(max_run_queue, Opts) of
                        0 -> 0;
                        L -> max(L, 4 * Base)
                    end,
            erlang:send_after(?TICK_MS, self(), tick),
            loop(#run{guardian = Guardian, sink = Sink, opts = Opts, set = Set,
                      stamps = stamps(MFAs, Type), start = erlang:monotonic_time(microsecond),
                      runq_limit = Limit});
        {error, Reason, Detail} ->
            tr_close(Tr),
            Sink ! {fp_calls_error, ?PROTO, Reason, Detail},
            exit(normal)
    end.

setup(Guardian, Type, Opts, Tr) ->
    try
        supported(Type),
        MFAs = expand(maps:get(patterns, Opts)),
        Limit = maps:get(limit, Opts),
        length(MFAs) > Limit andalso not maps:get(force, Opts) andalso
            throw({too_many, integer_to_binary(length(MFAs))}),
        %% only the global session is shared with anybody else
        Tr =:= global andalso [throw({in_use, mfa_text(MFA)}) || MFA <- MFAs, in_use(MFA)],
        Procs = procs(Type, Opts, Tr),
        %% the guardian learns what is about to be set before it is set
        Guardian ! {setting, mfas, MFAs},
        Guardian ! {setting, procs, Procs},
        [tr_pattern(Tr, MFA, true, [Type]) || MFA <- MFAs],
        NProcs = set_flags(Tr, Procs, true),
        {ok, MFAs, Procs, NProcs}
    catch
        throw:{Reason, Detail} -> {error, Reason, Detail}
    end.

%% call_memory came with OTP 26: older nodes refuse the option with
%% badarg. A pattern that matches no function sets nothing.
supported(call_memory) ->
    try erlang:trace_pattern({?MODULE, no_such_function, 0}, true, [call_memory]) of
        _ -> ok
    catch error:badarg ->
            throw({unsupported, list_to_binary(erlang:system_info(otp_release))})
    end;
supported(_) -> ok.

%% Patterns are {Module, Function | '_', Arity | '_'}, names as binaries.
%% Only loaded modules are looked at, and no atom is made from the user's
%% text: a name that is not an atom yet cannot be a loaded module.
expand(Patterns) ->
    lists:usort(lists:append([expand1(P) || P <- Patterns])).

expand1({ModText, F, A} = P) ->
    Mods = case ModText of
               '_' -> [M || {M, _} <- code:all_loaded(), not ours(M)];
               _ -> [loaded_module(ModText)]
           end,
    Fun = case F of '_' -> '_'; _ -> existing_atom(F) end,
    Found = [{M, Fn, Ar} || M <- Mods, {Fn, Ar} <- functions(M),
                            F =:= '_' orelse Fn =:= Fun,
                            A =:= '_' orelse Ar =:= A],
    Found =:= [] andalso
        throw({nomatch, <<"pattern ", (pattern_text(P))/binary, " matches no function">>}),
    Found.

ours(M) ->
    lists:prefix("flameprof_", atom_to_list(M)).

%% Somebody else's breakpoint of any of the three kinds: sharing it would
%% mix their counts with ours, and removing it at the end would be theirs.
in_use(MFA) ->
    lists:any(fun(Kind) ->
                      try erlang:trace_info(MFA, Kind) of
                          {Kind, false} -> false;
                          {Kind, _} -> true;
                          _ -> false
                      catch error:badarg -> false
                      end
              end, [call_count, call_time, call_memory]).

%% Which processes get the call flag: none for call_count (it counts in
%% every process), else all, new, or the pids and names given.
procs(call_count, _, _) -> none;
procs(_, #{procs := all}, Tr) -> check_untraced(Tr, all), all;
procs(_, #{procs := new}, Tr) -> check_untraced(Tr, new), new;
procs(_, #{procs := {list, Pids, Names}}, Tr) ->
    Found = [to_pid(P) || P <- Pids] ++ [whereis_bin(N) || N <- Names],
    Missing = [T || {T, P} <- lists:zip(Pids ++ Names, Found), not is_pid(P)],
    Missing =/= [] andalso throw({noproc, name_text(hd(Missing))}),
    check_untraced(Tr, {list, Found}),
    {list, lists:usort(Found)}.

%% A process traced by someone else (dbg, a tracer of the application)
%% in the global session is left alone: we would take over or clear their
%% flags. In a session of our own their flags are theirs.
check_untraced({session, _}, _) -> ok;
check_untraced(global, What) -> check_untraced(What).

check_untraced(all) -> check_untraced(new), check_untraced({list, erlang:processes()});
check_untraced(new) ->
    case erlang:trace_info(new, tracer) of
        {tracer, []} -> ok;
        _ -> throw({in_use, <<"new processes">>})
    end;
check_untraced({list, Pids}) ->
    [throw({in_use, list_to_binary(pid_text(P))})
     || P <- Pids, traced_by_other(P)],
    ok.

set_flags(_, none, _) -> 0;
set_flags(Tr, {list, Pids}, On) ->
    lists:sum([try tr_process(Tr, P, On, [call, silent]) catch error:badarg -> 0 end || P <- Pids]);
set_flags(Tr, Procs, On) -> tr_process(Tr, Procs, On, [call, silent]).

%% ---------------------------------------------------------------- running

loop(R) ->
    receive
        stop ->
            finish_run(R, stopped);
        tick ->
            tick(R);
        {nodedown, _} ->
            %% flameprof is gone (killed, its host down): nobody reads rows
            cleanup(R#run.set, self()),
            exit(normal);
        {'EXIT', Guardian, _} when Guardian =:= R#run.guardian ->
            cleanup(R#run.set, self()),
            unload_self(),
            exit(normal);
        _ ->
            %% trace messages cannot come (silent); anything else is dropped
            loop(R)
    end.

finish_run(#run{set = Set, stamps = Stamps} = R, Why) ->
    Result = collect(Set, R#run.opts, R#run.reloaded ++ reloaded(Set, Stamps), R#run.start, Why),
    cleanup(Set, self()),
    R#run.sink ! Result,
    exit(normal).

%% Every tick: breakpoints lost to code loading are set again, and the
%% node's load is checked. Tracing makes each traced call dearer (a
%% call_time breakpoint about 0.6 us), so when the node falls behind (its
%% run queues stay past the limit for two ticks) the run ends early, with
%% what it counted so far.
tick(#run{set = Set, stamps = Stamps} = R0) ->
    R = case reloaded(Set, Stamps) of
            [] -> R0;
            Mods ->
                Set1 = reapply(R0#run.guardian, Set, R0#run.opts, Mods),
                R0#run{set = Set1, stamps = stamps(maps:get(mfas, Set1), maps:get(type, Set1)),
                       reloaded = lists:usort(Mods ++ R0#run.reloaded)}
        end,
    RunQ = erlang:statistics(total_run_queue_lengths),
    Over = case R#run.runq_limit > 0 andalso RunQ > R#run.runq_limit of
               true -> R#run.over + 1;
               false -> 0
           end,
    case Over >= 2 of
        true -> finish_run(R, {overload, RunQ, R#run.runq_limit});
        false ->
            erlang:send_after(?TICK_MS, self(), tick),
            loop(R#run{over = Over})
    end.

%% Loading a module again gives it code without our breakpoints: one
%% function per module is enough to tell (its trace_info goes false).
stamps(MFAs, Type) ->
    {Type, maps:from_list([{M, MFA} || {M, _, _} = MFA <- MFAs])}.

reloaded(#{tr := Tr}, {Type, ByMod}) ->
    [M || {M, MFA} <- maps:to_list(ByMod), lost(Tr, MFA, Type)].

lost(Tr, MFA, Type) ->
    try tr_info(Tr, MFA, Type) of
        {Type, false} -> true;
        _ -> false
    catch error:badarg -> true
    end.

%% The new code gets the breakpoints again: its calls from now on count,
%% and the run says that module's counts may be incomplete.
reapply(Guardian, #{type := Type, mfas := MFAs, tr := Tr} = Set, Opts, Mods) ->
    Names = [atom_to_binary(M, utf8) || M <- Mods],
    %% a pattern's module is a binary or the names it may be (an alias)
    Patterns = [P || {M, _, _} = P <- maps:get(patterns, Opts),
                     M =:= '_' orelse lists:any(fun(T) -> lists:member(T, Names) end, lists:flatten([M]))],
    New = lists:usort([MFA || P <- Patterns, MFA <- expand_quietly(P),
                              lists:member(element(1, MFA), Mods)]),
    Fresh = New -- MFAs,
    Guardian ! {setting, mfas, Fresh},
    [tr_pattern(Tr, MFA, true, [Type]) || MFA <- New],
    Set#{mfas := lists:usort(MFAs ++ Fresh)}.

expand_quietly(P) ->
    try expand1(P) catch throw:_ -> [] end.

%% ---------------------------------------------------------------- results

%% The breakpoints are paused first, so every row is read at one moment.
collect(#{type := Type, mfas := MFAs, tr := Tr}, Opts, Reloaded, Start, Why) ->
    [tr_pattern(Tr, MFA, pause, [Type]) || MFA <- MFAs],
    Elapsed = erlang:monotonic_time(microsecond) - Start,
    PerProc = maps:get(per_process, Opts),
    Rows = lists:append([rows(Tr, MFA, Type, PerProc) || MFA <- MFAs]),
    {Kept, Left} = case length(Rows) > ?MAX_ROWS of
                       true -> {lists:sublist(Rows, ?MAX_ROWS), length(Rows) - ?MAX_ROWS};
                       false -> {Rows, 0}
                   end,
    {fp_calls_result, ?PROTO, Type, Kept, [atom_to_binary(M, utf8) || M <- lists:usort(Reloaded)],
     {Elapsed, Left, Why}}.

rows(Tr, {M, F, A} = MFA, Type, PerProc) ->
    Per = case attempt(fun() -> tr_info(Tr, MFA, Type) end) of
              {call_count, N} when is_integer(N) -> [{<<>>, N, 0}];
              {call_time, L} when is_list(L) ->
                  [{P, C, S * 1000000 + Us} || {P, C, S, Us} <- L];
              {call_memory, L} when is_list(L) -> [{P, C, W} || {P, C, W} <- L];
              _ -> []
          end,
    Lines = case PerProc of
                true -> [{list_to_binary(pid_text(P)), proc_name(P), C, V} || {P, C, V} <- Per];
                false ->
                    {C, V} = lists:foldl(fun({_, C0, V0}, {C1, V1}) -> {C0 + C1, V0 + V1} end, {0, 0}, Per),
                    [{<<>>, <<>>, C, V}]
            end,
    [{atom_to_binary(M, utf8), atom_to_binary(F, utf8), A, P, N, C, V}
     || {P, N, C, V} <- Lines, C > 0 orelse V > 0].

%% What names a process, as the flame graph's category frames do: its
%% registered name, else its proc_lib label or initial call
%% ('$process_label', '$initial_call': a gen_server's own module), else its
%% initial call; <<>> for a process gone. Kept per pid in this process's
%% dictionary: a process has rows for several functions, and before OTP
%% 26.2 the dictionary is read whole.
proc_name(P) when is_pid(P) ->
    case get({name, P}) of
        undefined -> N = proc_name1(P), put({name, P}, N), N;
        N -> N
    end;
proc_name(_) -> <<>>.

proc_name1(P) ->
    case erlang:process_info(P, [registered_name, initial_call, dictionary]) of
        [{registered_name, R}, _, _] when is_atom(R) -> atom_to_binary(R, utf8);
        [_, {initial_call, IC}, {dictionary, D}] ->
            case {proplists:get_value('$process_label', D), proplists:get_value('$initial_call', D)} of
                {undefined, {M, F, A}} when is_atom(M), is_atom(F), is_integer(A) -> mfa_text({M, F, A});
                {undefined, _} -> ic_text(IC);
                {Label, _} -> iolist_to_binary(io_lib:format("~0tP", [Label, 8]))
            end;
        _ -> <<>>
    end.

ic_text({M, F, A}) when is_atom(M), is_atom(F), is_integer(A) -> mfa_text({M, F, A});
ic_text(_) -> <<>>.

%% ---------------------------------------------------------------- cleanup

%% In a session of our own: the session, with all it holds. In the global
%% session exactly what was set: the patterns on our list and the flags of
%% the processes we traced. Flags of a process whose tracer (we) died read
%% as traced by nobody, so those are cleared too when they are ours to clear.
cleanup(#{tr := {session, _} = Tr}, _) -> tr_close(Tr);
cleanup(#{type := Type, mfas := MFAs, procs := Procs}, Tracer) ->
    [attempt(fun() -> erlang:trace_pattern(MFA, false, [Type]) end) || MFA <- MFAs],
    clear_flags(global, Procs, Tracer),
    ok.

clear_flags(_, none, _) -> ok;
clear_flags({session, _} = Tr, _, _) -> tr_close(Tr);
clear_flags(global, new, Tracer) -> clear_new(Tracer), clear_flags({list, erlang:processes()}, Tracer);
clear_flags(global, all, Tracer) -> clear_new(Tracer), clear_flags({list, erlang:processes()}, Tracer);
clear_flags(global, {list, _} = L, Tracer) -> clear_flags(L, Tracer).

clear_flags({list, Pids}, Tracer) ->
    [attempt(fun() -> erlang:trace(P, false, [call, silent]) end) || P <- Pids, ours_to_clear(P, Tracer)],
    ok.

clear_new(Tracer) ->
    case erlang:trace_info(new, tracer) of
        {tracer, T} when T =:= Tracer; T =:= [] -> attempt(fun() -> erlang:trace(new, false, [call, silent]) end);
        _ -> ok
    end.

ours_to_clear(P, Tracer) ->
    case {erlang:trace_info(P, tracer), erlang:trace_info(P, flags)} of
        {{tracer, T}, {flags, Fl}} when T =:= Tracer; T =:= [] -> lists:member(call, Fl);
        _ -> false
    end.

%% ---------------------------------------------------------------- helpers

to_pid(Text) ->
    try list_to_pid(binary_to_list(Text)) of
        P when node(P) =:= node() ->
            case is_process_alive(P) of true -> P; false -> undefined end;
        _ -> undefined
    catch error:badarg -> undefined
    end.

%% whereis_bin/1 and name_text/1 (shared with the agent)
-include("fp_names.hrl").

