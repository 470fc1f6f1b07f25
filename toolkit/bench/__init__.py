"""Benchmarks (not timed tests): ``python -m toolkit bench engine|replay|sweep|log|viz``.

Each module exposes ``run(args) -> int`` (``args``: the parsed options of the ``bench``
command: ``--records --keys --seed --only --svg``) and prints its figures; times are taken
with :mod:`toolkit.bench._timing`. The table of names is ``toolkit.commands.bench.BENCHMARKS``.
"""
