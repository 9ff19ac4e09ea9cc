%% fp_hostile_rex - a node that lies to flameprof: its rex is replaced by a
%% process that answers chosen calls with what no real node sends (issue
%% 18) and passes every other call to the real rex, which answers the
%% caller itself. hostile_rex.t sets a mode, runs flameprof, and expects a
%% clear error and no memory error.
-module(fp_hostile_rex).
-export([start/0, mode/1, stop/0]).

%% start(): rex replaced; the real one kept as fp_real_rex.
start() ->
    Real = whereis(rex),
    unregister(rex),
    register(fp_real_rex, Real),
    Fake = spawn(fun() -> loop(Real, none) end),
    register(rex, Fake),
    ok.

%% mode(M): how the next calls are answered (see answer/2).
mode(M) -> rex ! {fp_mode, M}, ok.

stop() ->
    Fake = whereis(rex),
    unregister(rex),
    unregister(fp_real_rex),
    register(rex, whereis_real(Fake)),
    exit(Fake, kill),
    ok.

whereis_real(Fake) ->
    Fake ! {fp_real, self()},
    receive {fp_real, R} -> R after 5000 -> error(no_real_rex) end.

loop(Real, Mode) ->
    receive
        {fp_mode, M} -> loop(Real, M);
        {fp_real, From} -> From ! {fp_real, Real}, loop(Real, Mode);
        {From, {call, M, F, A, _} = Req} = Msg when is_pid(From) ->
            case answer(Mode, {M, F, A}) of
                %% flameprof's high-priority stand-in for rex (node/runner.exprs)
                %% would take its later calls past this process: refused here
                %% while a mode is set, so that they meet it (and flameprof goes
                %% on through rex, as on a node that will not start it)
                pass when Mode =/= none, M =:= erlang, F =:= spawn_opt, hd(A) =:= erl_eval ->
                    From ! {rex, no_runner};
                pass -> Real ! Msg;
                {flood, N, R} ->
                    [{fp_junk, node(From)} ! {junk, I} || I <- lists:seq(1, N)],
                    From ! {rex, R};
                {reply, R} -> From ! {rex, R}
            end,
            _ = Req,
            loop(Real, Mode);
        Other ->
            Real ! Other,
            loop(Real, Mode)
    end.

release() -> {erlang, system_info, [otp_release]}.

%% The node's first call is erlang:system_info(otp_release).
answer(big_release, MFA) -> first(MFA, lists:duplicate(6000, $9));
answer(wide_release, MFA) -> first(MFA, lists:duplicate(70000, 300));
answer(escape_release, MFA) -> first(MFA, "25\e]0;owned\a");
answer(atom_release, MFA) -> first(MFA, '25');
answer(deep_release, MFA) -> first(MFA, lists:foldl(fun(_, T) -> [T] end, x, lists:seq(1, 1000)));
answer(huge_release, MFA) -> first(MFA, binary:copy(<<"9">>, 130 bsl 20));
answer(flood_release, MFA) when MFA =:= {erlang, system_info, [otp_release]} ->
    {flood, 20000, "25"};
%% the lock's spawn answered with a long list instead of a pid
answer(spawn_list, {erlang, spawn, _}) -> {reply, lists:seq(1, 100000)};
%% the lock's timer answered with a fake reference
answer(bad_ref, {erlang, send_after, _}) -> {reply, {ref, lists:duplicate(5000, $r)}};
%% --cluster: nodes(visible) answered with a chosen list (duplicates, the
%% node itself, nodes it is not connected to)
answer({nodes, L}, {erlang, nodes, _}) -> {reply, L};
answer(_, _) -> pass.

first(MFA, R) ->
    case MFA =:= release() of
        true -> {reply, R};
        false -> pass
    end.
