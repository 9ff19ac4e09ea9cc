%% fp_churn - a service's shape that selection cannot see: a process per
%% request, each computing about 2 ms and exiting, a few hundred a second
%% (Cowboy, Phoenix, Yaws spawn one per request or connection), for the
%% end-to-end tests and bench/truth.sh.
-module(fp_churn).
-export([start/1, request/1]).

%% Rate: requests started a second (each by its own process).
start(Rate) ->
    spawn(fun() -> loop(max(1, 1000 div Rate)) end),
    ok.

%% One request every Ms (timer:sleep has 1 ms steps: Rate above 1000 is 1000).
loop(Ms) ->
    spawn(?MODULE, request, [erlang:unique_integer([positive])]),
    timer:sleep(Ms),
    loop(Ms).

%% About 2 ms of computing on this VM, then the process ends.
request(Seed) -> page(40000, Seed).

page(0, X) -> X;
page(N, X) -> page(N - 1, erlang:phash2({X, N})).
