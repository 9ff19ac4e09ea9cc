%% make_corpus_replies - seeds for fuzz_rex and fuzz_epmd: each rex reply
%% flameprof reads ({rex, R} as the node sends it, term_to_binary) and
%% epmd's answers as bytes on the wire; and distribution packets as the
%% node sends them to flameprof (pass-through, control message, message),
%% which fuzz_rex also reads. Run by make_corpus.sh (a node of
%% its own, so pids and refs carry a real node name).
-module(make_corpus_replies).
-export([main/1]).

main([RexDir, EpmdDir]) ->
    Pid = spawn(fun() -> ok end),
    Ref = erlang:send_after(60000, self(), x),
    Rex = [{release, "25"}, {release_old, "R16B03"}, {pid, Pid}, {true, true},
           {false, false}, {undefined, undefined},
           {nodes, [node(), 'a@b', 'flameprof_root@host']}, {nodes_none, []},
           {ref, Ref}, {loaded, {module, flameprof_agent_0_1_0}},
           {not_purged, {error, not_purged}}, {binary, {ok, m, <<"FOR1beam">>, []}},
           {bare_lock, [{initial_call, {erlang, hibernate, 3}}, {links, []}, {group_leader, Pid}]},
           {adopted_lock, [{initial_call, {erlang, hibernate, 3}}, {links, [Pid]}, {group_leader, Pid}]},
           {badrpc, {badrpc, {'EXIT', {badarg, [{erlang, register, 2, []}]}}}},
           {scan, {ok, [{atom, 1, a}, {dot, 1}], 2}}],
    [ok = file:write_file(filename:join(RexDir, atom_to_list(N) ++ ".bin"),
                          term_to_binary({rex, R})) || {N, R} <- Rex],
    Packets = [{packet_send, {2, '', Pid}, {rex, "25"}},
               {packet_reg_send, {6, Pid, '', fp_junk}, {junk, 1}},
               {packet_exit, {3, Pid, Pid, killed}, none},
               {packet_unlink_id, {35, 1234567, Pid, Pid}, none}],
    [ok = file:write_file(filename:join(RexDir, atom_to_list(N) ++ ".bin"),
                          [$p, term_to_binary(C) | [term_to_binary(M) || M =/= none]])
     || {N, C, M} <- Packets],
    Port = <<119, 0, 16#9c, 16#41, 77, 0, 0, 6, 0, 5, 0, 3, "app", 0, 0>>,
    Names = <<0, 0, 16#11, 16#11, "name app at port 40001\nname flameprof_root at port 40002\n">>,
    Epmd = [{port, Port}, {port_unknown, <<119, 1>>}, {names, Names},
            {names_odd, <<0, 0, 0, 0, "name \e]0;x\a at port 1\nname ok at port 2\n">>}],
    [ok = file:write_file(filename:join(EpmdDir, atom_to_list(N) ++ ".bin"), B) || {N, B} <- Epmd],
    halt(0).
