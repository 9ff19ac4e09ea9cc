%% fp_stack.hrl - a sampled stack as the agent keys it: each frame's
%% module, function, arity and line (frames/1), and the two 32-bit hashes
%% of that (stack_hash/1). Included by the agent (sampler/flameprof_agent.erl)
%% and by bench/fp_cost.erl, which times these very steps.
frames([{M, F, A, Loc} | Rest]) -> [{M, F, A, loc_line(Loc)} | frames(Rest)];
frames([]) -> [].

loc_line([{line, L} | _]) -> L;
loc_line([_ | Rest]) -> loc_line(Rest);
loc_line(_) -> 0.

stack_hash(Frames) ->
    {erlang:phash2(Frames, 1 bsl 32), erlang:phash2({Frames}, 1 bsl 32)}.
