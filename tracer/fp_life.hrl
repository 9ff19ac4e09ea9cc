%% fp_life.hrl - the life of any module of flameprof's on the node: the
%% sampling agent (sampler/flameprof_agent.erl) and both tracers (through
%% fp_trace_common.hrl). Each is loaded on the node alone, so the code is
%% compiled into each; the embedded source is preprocessed, includes and
%% all.
%%
%% The C side takes the node's lock of the module's job before it touches
%% any code: a bare process registered as ?LOCK (node/lock.c; the name is
%% the caller's, sampler/agent.c or tracer/tracer_session.c), which an
%% erlang:send_after/3 timer ends unless a process of ours adopts it. The
%% including module defines ?LOCK, and its init/1 is the process that
%% adopts the lock (the agent's coordinator, a tracer's guardian): the
%% orphan check below knows a copy that started by that initial call.
%%
%% Here: the watchdog (the module's on_load) and its orphan check, the
%% lock adopted, lost, and ended, the word a guardian sends when what it
%% guards died, unload_self/0 (fp_purge.hrl), and attempt/1.

-on_load(watchdog/0).

%% how long a copy nobody started stays loaded
-define(WATCHDOG_MS, 60000).

%% flameprof takes the lock, loads the module, then starts it in a second
%% request; if it dies in between, nothing else would remove the module. A
%% watchdog started at load time does, once the lock is gone (its timer
%% ends it) or adopted by another module (another mode or release of
%% flameprof: this copy is then left over). A bare lock may still be ours
%% starting: it is looked at again later. A copy that started stops the
%% watchdog: it removes itself when it ends.
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

%% Adopts the lock the C-node registered as ?LOCK (LockTimer: the
%% erlang:send_after/3 timer that ends it if nobody adopts it). Linked
%% first: if the lock is already dead, whereis says so. @return true (the
%% lock is ours: its timer cancelled; ours to end, end_lock/1) or false
%% (it was gone: lock_lost/4).
adopt_lock(Lock, LockTimer) ->
    link(Lock),
    case whereis(?LOCK) =:= Lock of
        true ->
            _ = erlang:cancel_timer(LockTimer),
            true;
        false -> false
    end.

%% The lock was gone before we started: the sink is told (Word), the lock
%% ended and the process too. Unload: whether the module goes now (the
%% agent) or stays for its watchdog (a tracer: another run may hold the
%% node by now, and the module be its code).
lock_lost(Sink, Word, Lock, Unload) ->
    Sink ! Word,
    exit(Lock, kill),
    Unload andalso unload_self(),
    exit(normal).

%% The node is free again for the next run.
end_lock(Lock) ->
    unlink(Lock),
    exit(Lock, kill).

%% A guardian's word to the sink that what it guards died: never waiting
%% on a busy connection (dropped then) nor connecting to a sink gone.
tell_down(Sink, Word) ->
    _ = attempt(fun() -> erlang:send(Sink, Word, [nosuspend, noconnect]) end),
    ok.

%% unload_self/0: the module deleted, its purge started (fast even on a
%% saturated node, and it goes on by itself)
-include("fp_purge.hrl").

%% `catch Expr` is deprecated from OTP 29 (a warning when the embedded
%% source is compiled on the node): what may fail and does not matter goes
%% through this instead.
attempt(Fun) ->
    try Fun() catch _:_ -> failed end.
