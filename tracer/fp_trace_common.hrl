%% fp_trace_common.hrl - the life of flameprof's two tracers on the node
%% (flameprof_tracer for `calls`, flameprof_requests), the same in both:
%% the watchdog that removes a copy nobody started, the guardian that adopts
%% the lock, watches the session and cleans up after it, the module's
%% unloading, and small helpers. Included by both (each is loaded on the
%% node alone, so the code is compiled into each; the embedded source is
%% preprocessed, includes and all).
%%
%% Included right after -module and the module's own -defines: it exports
%% init/1 (the guardian) and session/2, makes the watchdog the module's
%% on_load, and includes fp_trace_session.hrl. The including module defines
%% ?PROTO (its messages' protocol) and ?ERROR_TAG (the tag of its error
%% message to the sink) and these functions:
%%   guard_set(Opts) -> Set       what the guardian knows at the start
%%   guard_setting(Msg, Set) -> Set   a {setting, ...} message of its session
%%   guard_died(Set, Session)     cleanup after a session that died
%%   sweep(Set, Session)          the second sweep after the session ended

%% init/1: the guardian below; session/2: the including module's session
-export([init/1, session/2]).
-on_load(watchdog/0).

%% the lock both tracers take (node/lock.c registers it for them)
-define(LOCK, flameprof_tracer).
%% how long a copy nobody started stays loaded
-define(WATCHDOG_MS, 60000).

%% tr_open/1 and the rest of where patterns and flags go; attempt/1
-include("fp_trace_session.hrl").

%% flameprof takes the lock, loads this module, then starts it in a second
%% request; if it dies in between, nothing else would remove the module. A
%% watchdog started at load time does, once the lock is gone (its timer
%% ends it) or adopted by another module's guardian (the other tracing
%% mode: this copy is then left over). A bare lock may still be ours
%% starting: it is looked at again later.
watchdog() ->
    spawn(fun() -> receive after ?WATCHDOG_MS -> orphan_check() end end),
    ok.

orphan_check() ->
    case whereis(?LOCK) of
        undefined -> unload_self();
        Lock ->
            case erlang:process_info(Lock, links) of
                {links, []} -> receive after ?WATCHDOG_MS -> orphan_check() end;
                {links, Links} ->
                    Ours = [L || L <- Links, is_pid(L), node(L) =:= node(),
                                 erlang:process_info(L, initial_call) =:=
                                     {initial_call, {?MODULE, init, 1}}],
                    Ours =:= [] andalso unload_self(),
                    ok;
                undefined -> orphan_check()
            end
    end.

%% The guardian: adopts the lock the C-node registered as ?LOCK (LockTimer:
%% the erlang:send_after/3 timer that ends it if we never start), starts
%% the session, cleans up after it and only then ends the lock.
init(#{sink := Sink, lock := Lock, lock_timer := LockTimer} = Opts) ->
    process_flag(trap_exit, true),
    %% linked first: if the lock is already dead, whereis says so below
    link(Lock),
    case whereis(?LOCK) =:= Lock of
        true ->
            _ = erlang:cancel_timer(LockTimer),
            %% at high priority from its first line (it sets that
            %% itself too): on a saturated node a normal-priority
            %% process waits behind the whole run queue to start
            Session = spawn_opt(?MODULE, session, [self(), Opts], [link, {priority, high}]),
            guard(Sink, Lock, Session, guard_set(Opts));
        false ->
            Sink ! {?ERROR_TAG, ?PROTO, lock_lost, <<"the lock was gone before the tracer started">>},
            exit(Lock, kill),
            %% the module stays: another run may hold the node by now and
            %% the module be its code; the watchdog removes it otherwise
            exit(normal)
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
            _ = erlang:send(Sink, {?ERROR_TAG, ?PROTO, died, Text}, [nosuspend, noconnect]),
            sweep(Set, Session),
            finish(Lock);
        _ ->
            guard(Sink, Lock, Session, Set)
    end.

finish(Lock) ->
    unlink(Lock),
    exit(Lock, kill),
    unload_self(),
    exit(normal).

%% unload_self/0: the module deleted, its purge started (fast even on a
%% saturated node, and it goes on by itself)
-include("fp_purge.hrl").

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
