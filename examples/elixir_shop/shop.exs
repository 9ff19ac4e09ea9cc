# shop.exs - a small supervised Elixir pipeline to profile with flameprof.
#
#   elixir --sname shop --cookie COOKIE examples/elixir_shop/shop.exs [READY_FILE]
#
# Shop.Supervisor starts four Shop.Pricing servers (registered as
# :pricer_1..:pricer_4) and a Shop.Load process that prices baskets through
# them without end; Shop.Pricing.handle_call/3 and the anonymous fn inside
# it that prices each line are the hot code. Shop.Checkout.run(k) calls
# Shop.Tax.rate/1 exactly k times (for `flameprof calls`), from the caller;
# :"Shop.Legacy" is an Erlang module named like an Elixir alias.
# With READY_FILE the script writes that file once everything is started.

defmodule Shop.Tax do
  def rate(:food), do: 7
  def rate(_), do: 19
end

# An Erlang module named like an Elixir alias ('Shop.Legacy', not
# 'Elixir.Shop.Legacy'), as a library written in Erlang might be: flameprof
# resolves `--pattern Shop.Legacy` by what is loaded.
defmodule :"Shop.Legacy" do
  def ping(k), do: k
end

defmodule Shop.Checkout do
  # k calls of Shop.Tax.rate/1, nothing else of Shop.Tax.
  def run(k) do
    Enum.reduce(1..k, 0, fn i, acc -> acc + Shop.Tax.rate(if rem(i, 2) == 0, do: :food, else: :toy) end)
  end
end

defmodule Shop.Pricing do
  use GenServer

  def start_link(i), do: GenServer.start_link(__MODULE__, i, name: :"pricer_#{i}")

  @impl true
  def init(i), do: {:ok, %{id: i, priced: 0}}

  @impl true
  def handle_call({:price, basket}, _from, state) do
    total =
      basket
      |> Enum.map(fn {qty, cents} -> line_total(qty, cents) end)
      |> Enum.sum()

    {:reply, total, %{state | priced: state.priced + 1}}
  end

  # The hot function: a little arithmetic per unit, so each line costs work.
  defp line_total(qty, cents) do
    Enum.reduce(1..(qty * 3000), 0, fn k, acc -> rem(acc + cents * k, 1_000_003) end)
  end
end

defmodule Shop.Load do
  # Prices baskets through the pricers, round robin, pausing 2 ms between
  # baskets so the node stays responsive on a small machine (a basket
  # takes about a millisecond: long enough to be seen working).
  def start_link, do: {:ok, spawn_link(fn -> Process.register(self(), :shop_load); loop(1) end)}

  def child_spec(_), do: %{id: __MODULE__, start: {__MODULE__, :start_link, []}}

  defp loop(n) do
    basket = for k <- 1..8, do: {rem(n + k, 5) + 1, 100 + k}
    GenServer.call(:"pricer_#{rem(n, 4) + 1}", {:price, basket})
    Process.sleep(2)
    loop(n + 1)
  end
end

defmodule Shop.Supervisor do
  use Supervisor

  def start_link, do: Supervisor.start_link(__MODULE__, [], name: __MODULE__)

  @impl true
  def init(_) do
    pricers = for i <- 1..4, do: Supervisor.child_spec({Shop.Pricing, i}, id: {:pricer, i})
    Supervisor.init(pricers ++ [Shop.Load], strategy: :one_for_one)
  end
end

{:ok, _} = Shop.Supervisor.start_link()

case System.argv() do
  [ready | _] -> File.write!(ready, "")
  _ -> IO.puts("shop running on #{node()}; profile it with: flameprof --names elixir #{node()}")
end

Process.sleep(:infinity)
