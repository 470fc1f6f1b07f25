"""Helpers shared by test folders, imported as ``helpers.*`` (``pythonpath = ["tests"]`` in pyproject).

- :mod:`helpers.fakes`: small logs, replay results and sweep results that follow the data contracts;
- :mod:`helpers.chromium`: render a page in headless Chromium and read the DOM after its scripts ran.
"""
