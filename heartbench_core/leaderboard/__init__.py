"""The leaderboard: models of a dataset version ranked by their judge-run scores, and one model's questions.

`selectors` reads and ranks the runs (and lays out the ability chart); `views` serves the two
pages. The scoring itself is `heartbench_core.services.scoring` (arithmetic in `heartbench_core.lib.scoring`).
"""
