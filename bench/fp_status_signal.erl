%% fp_status_signal - when process_info(P, status) is not a direct read
%% (doc/truth.md, "What a sample is": seen, not yet mended).
%%
%% The agent reads each target's status alone, taking it for the target's
%% own state at that instant. It is, where the target has no signal it has
%% not handled yet. Where it has one (a message just come from a port: a
%% socket's reply), ERTS sends the read as a signal and the target answers
%% it itself, while it runs: `running`, whatever it was doing.
%%
%% start/0 runs a TCP echo on 127.0.0.1: 20 clients each send 100 bytes and
%% wait for them back (gen_tcp, passive), 20 server processes echo them.
%% probe(N), at high priority, reads the status of every process of the
%% node N times, a millisecond apart, timing each read, and gives, by the
%% status read: how many reads, and their median and largest time in ns.
%%
%%   erl +S 1:1 -noshell -pa DIR -eval 'fp_status_signal:start(),
%%       timer:sleep(500), io:format("~p~n", [fp_status_signal:probe(200)]), halt().'
%%
%% On +S 1:1 the probe holds the only scheduler through each pass, so no
%% other process can be running: every `running` read is the target
%% answering a signal (OTP 25, 27, 29: 1,095-2,342 such reads in 200
%% passes, median 5.3-9.0 us, where a `waiting` read takes 110-130 ns).
-module(fp_status_signal).
-export([start/0, probe/1]).

start() ->
    Self = self(),
    spawn(fun() ->
                  {ok, L} = gen_tcp:listen(0, [binary, {active, false}, {ip, {127, 0, 0, 1}}]),
                  {ok, Port} = inet:port(L),
                  Self ! {port, Port},
                  acceptor(L)
          end),
    receive {port, Port} -> ok end,
    [spawn(fun() -> client(Port) end) || _ <- lists:seq(1, 20)],
    ok.

acceptor(L) ->
    {ok, S} = gen_tcp:accept(L),
    P = spawn(fun() -> receive go -> echo(S) end end),
    ok = gen_tcp:controlling_process(S, P),
    P ! go,
    acceptor(L).

echo(S) ->
    case gen_tcp:recv(S, 0) of
        {ok, B} -> ok = gen_tcp:send(S, B), echo(S);
        _ -> ok
    end.

client(Port) ->
    {ok, S} = gen_tcp:connect({127, 0, 0, 1}, Port, [binary, {active, false}]),
    client(S, binary:copy(<<"x">>, 100)).

client(S, B) ->
    ok = gen_tcp:send(S, B),
    {ok, _} = gen_tcp:recv(S, byte_size(B)),
    client(S, B).

probe(N) ->
    Self = self(),
    spawn(fun() ->
                  process_flag(priority, high),
                  Ps = processes() -- [self()],
                  Self ! {reads, lists:append([pass(Ps) || _ <- lists:seq(1, N)])}
          end),
    receive
        {reads, Reads} ->
            [{St, length(Ts), lists:nth(max(1, length(Ts) div 2), Ts), lists:last(Ts)}
             || St <- lists:usort([S || {S, _} <- Reads]),
                Ts <- [lists:sort([T || {S, T} <- Reads, S =:= St])]]
    end.

pass(Ps) ->
    timer:sleep(1),
    [read(P) || P <- Ps].

read(P) ->
    T0 = erlang:monotonic_time(nanosecond),
    St = case erlang:process_info(P, status) of
             {status, S} -> S;
             undefined -> gone
         end,
    {St, erlang:monotonic_time(nanosecond) - T0}.
