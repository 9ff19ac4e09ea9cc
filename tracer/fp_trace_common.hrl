%% fp_trace_common.hrl - what flameprof's two tracers (flameprof_tracer for
%% `calls`, flameprof_requests) share on the node: the guardian that adopts
%% the lock, watches the session and cleans up after it, and small helpers.
%% Included by both (each is loaded on the node alone, so the code is
%% compiled into each; the embedded source is preprocessed, includes and
%% all).
%%
%% Included right after -module and the module's own -defines: it exports
%% init/1 (the guardian) and session/2, and includes fp_life.hrl (the
%% watchdog as the module's on_load, the lock's adoption and end,
%% unload_self/0: the life of any module of ours, the agent's too) and
%% fp_trace_session.hrl. The including module defines
%% ?PROTO (its messages' protocol) and ?ERROR_TAG (the tag of its error
%% message to the sink) and these functions:
%%   guard_set(Opts) -> Set       what the guardian knows at the start
%%   guard_setting(Msg, Set) -> Set   a {setting, ...} message of its session
%%   guard_died(Set, Session)     cleanup after a session that died
%%   sweep(Set, Session)          the second sweep after the session ended

%% init/1: the guardian below; session/2: the including module's session
-export([init/1, session/2]).

%% the lock both tracers take (tracer/tracer_session.c has node/lock.c
%% register it for them)
-define(LOCK, flameprof_tracer).

%% the watchdog (on_load), the lock adopted and ended, unload_self/0,
%% attempt/1: the life of any module of ours on the node
-include("fp_life.hrl").

%% tr_open/1 and the rest of where patterns and flags go
-include("fp_trace_session.hrl").

%% The guardian: adopts the lock the C-node registered as ?LOCK (LockTimer:
%% the erlang:send_after/3 timer that ends it if we never start), starts
%% the session, cleans up after it and only then ends the lock.
init(#{sink := Sink, lock := Lock, lock_timer := LockTimer} = Opts) ->
    process_flag(trap_exit, true),
    case adopt_lock(Lock, LockTimer) of
        true ->
            %% at high priority from its first line (it sets that
            %% itself too): on a saturated node a normal-priority
            %% process waits behind the whole run queue to start
            Session = spawn_opt(?MODULE, session, [self(), Opts], [link, {priority, high}]),
            guard(Sink, Lock, Session, guard_set(Opts));
        false ->
            %% the module stays: another run may hold the node by now and
            %% the module be its code; the watchdog removes it otherwise
            lock_lost(Sink, {?ERROR_TAG, ?PROTO, lock_lost, <<"the lock was gone before the tracer started">>},
                      Lock, false)
    end.

%% Set: what the session set, as far as the guardian must undo it (the
%% trace session among it: the guardian holds it too, and destroys it if
%% the session process dies).
guard(Sink, Lock, Session, Set) ->
    receive
        {'EXIT', Lock, _} ->
            %% the lock ended under us (a message to the name ends it):
            %% the node is no longer ours, so the session ends now
            exit(Session, kill),
            guard(Sink, Lock, Session, Set);
        Setting when element(1, Setting) =:= setting ->
            guard(Sink, Lock, Session, guard_setting(Setting, Set));
        {'EXIT', Session, normal} ->
            %% The session removed everything itself. A process spawned
            %% while it cleared the flags can still have taken them (seen
            %% with 100 processes spawned on a saturated 2-core node): a
            %% second sweep, once the spawns in flight have landed.
            sweep(Set, Session),
            finish(Lock);
        {'EXIT', Session, Why} ->
            guard_died(Set, Session),
            Text = iolist_to_binary(io_lib:format("~0tP", [Why, 8])),
            tell_down(Sink, {?ERROR_TAG, ?PROTO, died, Text}),
            sweep(Set, Session),
            finish(Lock);
        _ ->
            guard(Sink, Lock, Session, Set)
    end.

%% The lock ended only after the cleanup, the module last.
finish(Lock) ->
    end_lock(Lock),
    unload_self(),
    exit(normal).

%% ---------------------------------------------------------------- helpers

%% A module named by one text, or by the names to try in order (an Elixir
%% alias, Shop.Pricing: 'Elixir.Shop.Pricing', then an Erlang module of
%% that very name): the first one loaded.
loaded_module(Texts) when is_list(Texts) ->
    case [M || T <- Texts, M <- [existing_atom(T)], M =/= undefined, erlang:module_loaded(M)] of
        [M | _] -> M;
        [] -> throw({nomatch, not_loaded(Texts)})
    end;
loaded_module(Text) -> loaded_module([Text]).

not_loaded([T]) -> <<"module '", T/binary, "' is not loaded">>;
not_loaded([A, B]) -> <<"neither '", A/binary, "' nor '", B/binary, "' is loaded">>.

functions(M) ->
    try erlang:get_module_info(M, functions)
    catch error:badarg -> []
    end.

existing_atom(Text) ->
    try binary_to_existing_atom(Text, utf8)
    catch error:badarg -> undefined
    end.

traced_by_other(P) ->
    case erlang:trace_info(P, tracer) of
        {tracer, []} -> false;
        {tracer, T} -> T =/= self();
        undefined -> false
    end.

mfa_text({M, F, A}) ->
    iolist_to_binary([atom_to_binary(M, utf8), $:, atom_to_binary(F, utf8), $/, integer_to_binary(A)]).

pattern_text({M, F, A}) ->
    T = fun('_') -> <<"_">>; (B) when is_binary(B) -> B; ([_, B]) -> B; (I) -> integer_to_binary(I) end,
    <<"'", (T(M))/binary, ":", (T(F))/binary, "/", (T(A))/binary, "'">>.

pid_text(P) when is_pid(P) -> pid_to_list(P);
pid_text(_) -> "unknown".
