%% fp_busy - busy processes with recognisable names and a deep stack,
%% for the end-to-end tests.
-module(fp_busy).
-export([start/1, burn_cpu/1, deep_loop/0, idle_server/0, was_busy/0]).

start(N) ->
    [spawn(?MODULE, burn_cpu, [I]) || I <- lists:seq(1, N)],
    spawn(?MODULE, deep_loop, []),
    register(fp_idle_server, spawn(?MODULE, idle_server, [])),
    ok.

burn_cpu(X) -> burn_cpu(erlang:phash2({X, X})).

%% 50 nested calls, then spin at the bottom: a deep stack to see whole.
%% Each level returns, or the compiler would see that nothing comes back
%% and turn the calls into jumps; two functions alternate because the VM
%% shows a run of identical return addresses as one frame.
deep_loop() -> deep_even(50, 0), deep_loop().

deep_even(0, Acc) -> burn_deep(100000, Acc);
deep_even(N, Acc) -> R = deep_odd(N - 1, Acc + 1), R + 1.

deep_odd(N, Acc) -> R = deep_even(N - 1, Acc + 1), R + 1.

burn_deep(0, X) -> X;
burn_deep(N, X) -> burn_deep(N - 1, erlang:phash2(X)).

%% A process that was busy once and is idle now: many reductions in its
%% lifetime, none gained since. Registered as fp_was_busy once idle.
was_busy() ->
    P = spawn(fun() -> burn_deep(3000000, 0), register(fp_was_busy, self()), idle_server() end),
    {ok, P}.

idle_server() ->
    receive {ping, From} -> From ! pong, idle_server() end.
