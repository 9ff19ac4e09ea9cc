%% fp_names.hrl - a registered name given as text, looked up on the node
%% without making an atom: included by the agent (--pid/--name targets) and
%% the calls tracer (its --name processes), so both read a name alike.
%%
%% Never create an atom from user input on a production node. A name is
%% one binary, or the names to try in order: an Elixir alias (Shop.Pricer)
%% is 'Elixir.Shop.Pricer', else an Erlang atom of that very name.
whereis_bin(Names) when is_list(Names) ->
    case [P || N <- Names, P <- [whereis_bin(N)], is_pid(P)] of
        [P | _] -> P;
        [] -> undefined
    end;
whereis_bin(Name) ->
    try binary_to_existing_atom(Name, utf8) of
        A -> whereis(A)
    catch error:badarg -> undefined
    end.

%% The name to say: an Elixir alias's, or the one name given.
name_text([_, Name]) -> Name;
name_text(Name) -> Name.
