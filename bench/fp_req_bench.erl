%% fp_req_bench - the service `bench/requests.sh` measures: each request
%% crosses a client, a gen_server and a pool worker with 4 tiers
%% (parse, handle, db, format), each a few microseconds of work.
%%   start(Clients, Rate, Work): Clients processes; Rate requests/s in all
%%   (0: as fast as they can); Work: loop turns of a tier (db: twice).
%%   count() says how many requests finished.
-module(fp_req_bench).
-behaviour(gen_server).
-export([start/3, count/0, request/1, parse/1, handle/1, db/1, format/1]).
-export([init/1, handle_call/3, handle_cast/2, client/2, worker/0]).

start(Clients, Rate, Work) ->
    counters_put(),
    persistent_term:put(fp_req_bench_work, Work),
    {ok, _} = gen_server:start({local, fp_req_bench}, ?MODULE, [], []),
    Period = case Rate of 0 -> 0; _ -> max(1, Clients * 1000000 div Rate) end,
    [spawn(?MODULE, client, [N, Period]) || N <- lists:seq(1, Clients)],
    ok.

counters_put() -> persistent_term:put(fp_req_bench, counters:new(1, [write_concurrency])).
count() -> counters:get(persistent_term:get(fp_req_bench), 1).

request(K) ->
    P = parse(K),
    R = gen_server:call(fp_req_bench, {handle, P}),
    format(R).

parse(K) -> work(w()), {req, K}.
handle({req, K}) -> work(w()), Ref = make_ref(), W = whereis(fp_req_worker), W ! {db, self(), Ref, K},
                    receive {Ref, V} -> V end.
db(K) -> work(2 * w()), K.
format(V) -> work(w()), integer_to_binary(V).
w() -> persistent_term:get(fp_req_bench_work).

init([]) -> register(fp_req_worker, spawn_link(?MODULE, worker, [])), {ok, []}.
handle_call({handle, P}, _, S) -> {reply, handle(P), S}.
handle_cast(_, S) -> {noreply, S}.

worker() -> receive {db, From, Ref, K} -> From ! {Ref, db(K)} end, worker().

%% Paced clients keep their own schedule (microseconds), so a slower
%% service shows as fewer requests, not as a later schedule.
client(N, Period) -> client(N, Period, erlang:monotonic_time(microsecond)).
client(N, Period, Next) ->
    request(N),
    counters:add(persistent_term:get(fp_req_bench), 1, 1),
    case Period of
        0 -> client(N + 1, 0, Next);
        _ ->
            Next1 = Next + Period,
            Wait = (Next1 - erlang:monotonic_time(microsecond)) div 1000,
            Wait > 0 andalso timer:sleep(Wait),
            client(N + 1, Period, Next1)
    end.

work(N) -> work(N, 0).
work(0, Acc) -> Acc;
work(N, Acc) -> work(N - 1, Acc bxor (N * 7919)).
