%% fp_kv_labels - clients of the kv_service example (examples/) whose
%% requests carry a seq_trace label of their kind, {kv, Op}, as an
%% application that labels its own requests does: the label travels with
%% the gen_server call to the server and on to the pool worker. Between
%% requests a client clears its token; the server and the workers keep the
%% last one while they wait (a stale label). For tests/e2e/record_tiers.t.
-module(fp_kv_labels).
-export([start/1, client/1]).

%% The service with no clients of its own, and PerOp labelled clients for
%% each kind of request.
start(PerOp) ->
    ok = kv_service:start(0),
    [spawn(?MODULE, client, [Op]) || Op <- [create, read, update, delete], _ <- lists:seq(1, PerOp)],
    ok.

client(Op) ->
    seq_trace:set_token(label, {kv, Op}),
    _ = kv_service:request(Op, rand:uniform(1000)),
    seq_trace:set_token([]),
    client(Op).
