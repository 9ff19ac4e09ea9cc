%% placeholder, replaced by the real agent
-module(flameprof_agent).
